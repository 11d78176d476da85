import type { SqlClient } from '@paygate/sql';

export interface DueTimer<Kind extends string = string> {
  internalReference: string;
  kind: Kind;
  /** When it was due; a timer fires at or after this instant. */
  dueAt: Date;
  /** The lease this claim holds; completing checks it so a re-scheduled timer is not lost. */
  leaseUntil: Date;
}

const LEASE_MS = 30_000;
const TABLE_NAME = /^[a-z_][a-z0-9_]*$/;

function checkTableName(table: string): void {
  if (!TABLE_NAME.test(table)) throw new Error(`timer table name "${table}" is not a plain SQL identifier`);
}

/**
 * The DDL of a timer table, the one definition LeasedTimers relies on. Its owner puts it in its
 * own migration (collections/0001, payments/0001 carry it): whitespace aside, these statements
 * are the ones those released migrations were applied with, so their checksums hold.
 */
export function timerTableStatements(table: string): readonly string[] {
  checkTableName(table);
  return [
    `create table if not exists ${table} (
      internal_reference text not null,
      kind text not null,
      due_at timestamptz not null,
      fire_at timestamptz not null,
      primary key (internal_reference, kind)
    )`,
    `create index if not exists ${table}_fire_at on ${table} (fire_at)`,
  ];
}

/**
 * Durable timers in one table of STORE_URL, at most one per (internal reference, kind).
 * Projections schedule and cancel them in the transaction that applies their event, so a timer
 * exists exactly when its event does. Firing claims a timer with a lease (`for update skip
 * locked`): a process that dies mid-fire leaves it to be claimed again once the lease runs out,
 * so the caller makes a second fire harmless (the aggregate, an idempotency key). Every method
 * takes the client it runs on: the projection's transaction, or the database for a claim.
 */
/** What an event does to its aggregate's timers, as a context's process says it (applied by `apply`). */
export type TimerChange<Kind extends string> = { type: 'Schedule'; kind: Kind; at: string } | { type: 'Cancel'; kinds?: readonly Kind[] };

export class LeasedTimers<Kind extends string> {
  /** `table` is created by its owner's migration, from timerTableStatements. */
  constructor(readonly table: string) {
    checkTableName(table);
  }

  /**
   * The statement that schedules the timers `rows` yields as (internal_reference, kind, due_at,
   * fire_at), replacing any of the same kind: for a projection that writes its view row and the
   * timer in one statement.
   */
  upsert(rows: string): string {
    return `insert into ${this.table} (internal_reference, kind, due_at, fire_at) ${rows}
      on conflict (internal_reference, kind) do update set due_at = excluded.due_at, fire_at = excluded.fire_at`;
  }

  async schedule(tx: SqlClient, internalReference: string, kind: Kind, dueAt: Date): Promise<void> {
    await tx.query(this.upsert('values ($1, $2, $3, $3)'), [internalReference, kind, dueAt]);
  }

  /** Every timer of the reference, or those of `kinds`. */
  async cancel(tx: SqlClient, internalReference: string, kinds?: readonly Kind[]): Promise<void> {
    if (kinds) await tx.query(`delete from ${this.table} where internal_reference = $1 and kind = any($2::text[])`, [internalReference, kinds]);
    else await tx.query(`delete from ${this.table} where internal_reference = $1`, [internalReference]);
  }

  /** Applies a process's timer changes for one aggregate, in order, in the caller's transaction. */
  async apply(tx: SqlClient, internalReference: string, changes: readonly TimerChange<Kind>[]): Promise<void> {
    for (const change of changes) {
      if (change.type === 'Schedule') await this.schedule(tx, internalReference, change.kind, new Date(change.at));
      else await this.cancel(tx, internalReference, change.kinds);
    }
  }

  /** Up to `limit` due timers, each leased to the caller for LEASE_MS. */
  async claimDue(db: SqlClient, limit: number): Promise<DueTimer<Kind>[]> {
    const rows = await db.query<{ internal_reference: string; kind: Kind; due_at: Date; fire_at: Date }>(
      // In whole milliseconds: the lease comes back as a JavaScript Date, and completing matches it exactly.
      `update ${this.table} t set fire_at = date_trunc('milliseconds', now() + $2 * interval '1 millisecond')
       from (select internal_reference, kind from ${this.table} where fire_at <= now() order by fire_at limit $1 for update skip locked) due
       where t.internal_reference = due.internal_reference and t.kind = due.kind
       returning t.internal_reference, t.kind, t.due_at, t.fire_at`,
      [limit, LEASE_MS],
    );
    return rows.map((row) => ({ internalReference: row.internal_reference, kind: row.kind, dueAt: new Date(row.due_at), leaseUntil: new Date(row.fire_at) }));
  }

  /** Done with a claimed timer: delete it unless it was re-scheduled (or claimed again) meanwhile. */
  async complete(db: SqlClient, timer: DueTimer<Kind>): Promise<void> {
    await db.query(`delete from ${this.table} where internal_reference = $1 and kind = $2 and fire_at = $3`, [
      timer.internalReference,
      timer.kind,
      timer.leaseUntil,
    ]);
  }

  /** Fire a claimed timer again at `at` (polling, or a retry after a failure), unless it was re-scheduled meanwhile. */
  async retryAt(db: SqlClient, timer: DueTimer<Kind>, at: Date): Promise<void> {
    await db.query(`update ${this.table} set fire_at = $4 where internal_reference = $1 and kind = $2 and fire_at = $3`, [
      timer.internalReference,
      timer.kind,
      timer.leaseUntil,
      at,
    ]);
  }
}
