import type { SqlClient, SqlDatabase } from '@paygate/sql';

export type TimerKind = 'confirmation' | 'provider' | 'status';

export interface DueTimer {
  internalReference: string;
  kind: TimerKind;
  /** When it was due; a timer fires at or after this instant. */
  dueAt: Date;
  /** The lease this claim holds; completing checks it so a re-scheduled timer is not lost. */
  leaseUntil: Date;
}

export const TIMER_TABLES = [
  `create table if not exists collection_timers (
    internal_reference text not null,
    kind text not null,
    due_at timestamptz not null,
    fire_at timestamptz not null,
    primary key (internal_reference, kind)
  )`,
  'create index if not exists collection_timers_fire_at on collection_timers (fire_at)',
];

const LEASE_MS = 30_000;

/**
 * Durable timers in STORE_URL. Scheduling happens in the projection's transaction, so a timer
 * exists exactly when its event does. Firing claims a timer with a lease: a process that dies
 * mid-fire leaves it to be claimed again after the lease, and the aggregate makes a second fire
 * a no-op, so a time-out is never lost and never takes effect twice.
 */
export class CollectionTimers {
  constructor(private readonly sql: SqlDatabase) {}

  static async schedule(tx: SqlClient, internalReference: string, kind: TimerKind, dueAt: Date): Promise<void> {
    await tx.query(
      `insert into collection_timers (internal_reference, kind, due_at, fire_at) values ($1, $2, $3, $3)
       on conflict (internal_reference, kind) do update set due_at = excluded.due_at, fire_at = excluded.fire_at`,
      [internalReference, kind, dueAt],
    );
  }

  static async cancel(tx: SqlClient, internalReference: string, kinds?: TimerKind[]): Promise<void> {
    if (kinds) await tx.query('delete from collection_timers where internal_reference = $1 and kind = any($2::text[])', [internalReference, kinds]);
    else await tx.query('delete from collection_timers where internal_reference = $1', [internalReference]);
  }

  async claimDue(limit: number): Promise<DueTimer[]> {
    const rows = await this.sql.query<{ internal_reference: string; kind: TimerKind; due_at: Date; fire_at: Date }>(
      `update collection_timers t set fire_at = now() + $2 * interval '1 millisecond'
       from (select internal_reference, kind from collection_timers where fire_at <= now() order by fire_at limit $1 for update skip locked) due
       where t.internal_reference = due.internal_reference and t.kind = due.kind
       returning t.internal_reference, t.kind, t.due_at, t.fire_at`,
      [limit, LEASE_MS],
    );
    return rows.map((row) => ({ internalReference: row.internal_reference, kind: row.kind, dueAt: new Date(row.due_at), leaseUntil: new Date(row.fire_at) }));
  }

  /** Done with a claimed timer: delete it unless it was re-scheduled meanwhile. */
  async complete(timer: DueTimer): Promise<void> {
    await this.sql.query('delete from collection_timers where internal_reference = $1 and kind = $2 and fire_at = $3', [timer.internalReference, timer.kind, timer.leaseUntil]);
  }

  /** Fire a claimed timer again at `at` (polling, or a retry after a failure). */
  async retryAt(timer: DueTimer, at: Date): Promise<void> {
    await this.sql.query('update collection_timers set fire_at = $4 where internal_reference = $1 and kind = $2 and fire_at = $3', [timer.internalReference, timer.kind, timer.leaseUntil, at]);
  }
}
