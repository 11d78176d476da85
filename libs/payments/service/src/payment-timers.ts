import type { SqlClient, SqlDatabase } from '@paygate/sql';

/** `validation`: ask the biller about the PRN again; `payment`: pay the PRN (again) with the payment's idempotency key. */
export type PaymentTimerKind = 'validation' | 'payment';

export interface DuePaymentTimer {
  internalReference: string;
  kind: PaymentTimerKind;
  /** When it was due; a timer fires at or after this instant. */
  dueAt: Date;
  /** The lease this claim holds; completing checks it so a re-scheduled timer is not lost. */
  leaseUntil: Date;
}

export const PAYMENT_TIMER_TABLES = [
  `create table if not exists payment_timers (
    internal_reference text not null,
    kind text not null,
    due_at timestamptz not null,
    fire_at timestamptz not null,
    primary key (internal_reference, kind)
  )`,
  'create index if not exists payment_timers_fire_at on payment_timers (fire_at)',
];

const LEASE_MS = 30_000;

/**
 * Durable PRN payment timers in STORE_URL. The service payments projection schedules them in the
 * transaction that applies ServicePaymentRequested (a safety net: a payer that dies mid-call is
 * replaced) and PaymentAttemptFailed (the retry at nextAttemptAt), and deletes them with the
 * payment's final event, so a timer exists exactly when its event does. Firing claims a timer
 * with a lease (`for update skip locked`): a process that dies mid-fire leaves it to be claimed
 * again, and the deterministic idempotency key makes a second payment call the same payment.
 */
export class PaymentTimers {
  constructor(private readonly sql: SqlDatabase) {}

  static async schedule(tx: SqlClient, internalReference: string, kind: PaymentTimerKind, dueAt: Date): Promise<void> {
    await tx.query(
      `insert into payment_timers (internal_reference, kind, due_at, fire_at) values ($1, $2, $3, $3)
       on conflict (internal_reference, kind) do update set due_at = excluded.due_at, fire_at = excluded.fire_at`,
      [internalReference, kind, dueAt],
    );
  }

  /** Every timer of the payment, or the one of `kind`. */
  static async cancel(tx: SqlClient, internalReference: string, kind?: PaymentTimerKind): Promise<void> {
    if (kind) await tx.query('delete from payment_timers where internal_reference = $1 and kind = $2', [internalReference, kind]);
    else await tx.query('delete from payment_timers where internal_reference = $1', [internalReference]);
  }

  async claimDue(limit: number): Promise<DuePaymentTimer[]> {
    const rows = await this.sql.query<{ internal_reference: string; kind: PaymentTimerKind; due_at: Date; fire_at: Date }>(
      `update payment_timers t set fire_at = now() + $2 * interval '1 millisecond'
       from (select internal_reference, kind from payment_timers where fire_at <= now() order by fire_at limit $1 for update skip locked) due
       where t.internal_reference = due.internal_reference and t.kind = due.kind
       returning t.internal_reference, t.kind, t.due_at, t.fire_at`,
      [limit, LEASE_MS],
    );
    return rows.map((row) => ({ internalReference: row.internal_reference, kind: row.kind, dueAt: new Date(row.due_at), leaseUntil: new Date(row.fire_at) }));
  }

  /** Done with a claimed timer: delete it unless it was re-scheduled meanwhile. */
  async complete(timer: DuePaymentTimer): Promise<void> {
    await this.sql.query('delete from payment_timers where internal_reference = $1 and kind = $2 and fire_at = $3', [timer.internalReference, timer.kind, timer.leaseUntil]);
  }

  /** Fire a claimed timer again at `at`, unless it was re-scheduled meanwhile. */
  async retryAt(timer: DuePaymentTimer, at: Date): Promise<void> {
    await this.sql.query('update payment_timers set fire_at = $4 where internal_reference = $1 and kind = $2 and fire_at = $3', [timer.internalReference, timer.kind, timer.leaseUntil, at]);
  }

  async pending(internalReference: string): Promise<{ kind: PaymentTimerKind; dueAt: Date }[]> {
    const rows = await this.sql.query<{ kind: PaymentTimerKind; due_at: Date }>('select kind, due_at from payment_timers where internal_reference = $1', [internalReference]);
    return rows.map((row) => ({ kind: row.kind, dueAt: new Date(row.due_at) }));
  }
}
