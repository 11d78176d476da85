import { migrate, type SqlDatabase } from '@paygate/sql';

/** What the dispatcher has received of the wiring probe; the event id makes redelivery harmless. */
export class ProbeReceipts {
  private constructor(private readonly db: SqlDatabase) {}

  static async create(db: SqlDatabase): Promise<ProbeReceipts> {
    await migrate(db, 'webhooks-probe-receipts', [
      `create table if not exists webhooks_probe_receipts (
         event_id uuid primary key,
         probe_id text not null,
         note text not null,
         received_at timestamptz not null default now()
       )`,
    ]);
    return new ProbeReceipts(db);
  }

  async record(eventId: string, probeId: string, note: string): Promise<void> {
    await this.db.query(
      'insert into webhooks_probe_receipts (event_id, probe_id, note) values ($1, $2, $3) on conflict (event_id) do nothing',
      [eventId, probeId, note],
    );
  }

  async find(probeId: string): Promise<{ probe_id: string; note: string; received_at: string; deliveries: number } | undefined> {
    const rows = await this.db.query<{ probe_id: string; note: string; received_at: Date; deliveries: string }>(
      `select probe_id, min(note) as note, min(received_at) as received_at, count(*)::text as deliveries
       from webhooks_probe_receipts where probe_id = $1 group by probe_id`,
      [probeId],
    );
    const row = rows[0];
    return row && { probe_id: row.probe_id, note: row.note, received_at: new Date(row.received_at).toISOString(), deliveries: Number(row.deliveries) };
  }
}
