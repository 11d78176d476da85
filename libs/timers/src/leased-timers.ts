import { SqlJobQueue, type ClaimedJob } from '@paygate/jobs';
import type { SqlClient } from '@paygate/sql';

export interface DueTimer<Kind extends string = string> {
  internalReference: string;
  kind: Kind;
  /** When it was due; a timer fires at or after this instant. */
  dueAt: Date;
  /** The lease this claim holds; completing checks it so a re-scheduled timer is not lost. */
  leaseUntil: Date;
}

/** A timer as a job of its table's queue. */
export interface TimerPayload<Kind extends string> {
  internalReference: string;
  kind: Kind;
}

const TABLE_NAME = /^[a-z_][a-z0-9_]*$/;

function checkTableName(table: string): void {
  if (!TABLE_NAME.test(table)) throw new Error(`timer table name "${table}" is not a plain SQL identifier`);
}

/**
 * The DDL of a timer table as released before the job queue: its owner's migration carries it
 * (collections/0001, payments/0001), and whitespace aside these statements are the ones those
 * migrations were applied with, so their checksums hold. Timers now live on the job queue; the
 * table only held rows an older release wrote, which timerAdoptionStatements moves onto the queue.
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
 * Moves a timer table of a release before the job queue onto the queue, once: its owner's
 * migration carries these statements (collections/0002, payments/0002) after the `jobs` ones.
 * During a rolling upgrade the older pods still write the table, so a trigger, created first
 * (its lock holds their writes until the migration commits), turns each row they insert into a
 * job, replacing the queue's as this release's schedule would, and keeps it out of the table. The
 * rows already there move once; a timer already on the queue is kept. An older pod's cancel then
 * finds nothing to delete: that timer fires anyway, and the aggregate's state decides nothing.
 */
export function timerAdoptionStatements(table: string): readonly string[] {
  checkTableName(table);
  return [
    `create or replace function ${table}_onto_job_queue() returns trigger language plpgsql as $$
     begin
       insert into jobs (queue, key, payload, due_at, run_at)
       values ('${table}', new.internal_reference || '/' || new.kind,
               jsonb_build_object('internalReference', new.internal_reference, 'kind', new.kind), new.due_at, new.fire_at)
       on conflict (queue, key) do update
         set payload = excluded.payload, due_at = excluded.due_at, run_at = excluded.run_at, lease_until = null, attempts = 0;
       return null;
     end $$`,
    `create or replace trigger ${table}_onto_job_queue before insert on ${table} for each row execute function ${table}_onto_job_queue()`,
    `with moved as (delete from ${table} returning internal_reference, kind, due_at, fire_at)
     insert into jobs (queue, key, payload, due_at, run_at)
     select '${table}', internal_reference || '/' || kind, jsonb_build_object('internalReference', internal_reference, 'kind', kind), due_at, fire_at
     from moved
     on conflict (queue, key) do nothing`,
  ];
}

/** What an event does to its aggregate's timers, as a context's process says it (applied by `apply`). */
export type TimerChange<Kind extends string> =
  { type: 'Schedule'; kind: Kind; at: string } | { type: 'Cancel'; kinds?: readonly Kind[] };

/** One aggregate's timer changes, in order. */
export interface AggregateTimerChanges<Kind extends string> {
  internalReference: string;
  changes: readonly TimerChange<Kind>[];
}

/**
 * Durable timers, at most one per (internal reference, kind), as jobs of one queue (libs/jobs)
 * named after the table they had before. Projections schedule and cancel them in the transaction
 * that applies their event, so a timer exists exactly when its event does. Firing claims a timer
 * with a lease: a process that dies mid-fire leaves it to be claimed again once the lease runs
 * out, so the caller makes a second fire harmless (the aggregate, an idempotency key). Every
 * method takes the client it runs on: the projection's transaction, or the database for a claim.
 */
export class LeasedTimers<Kind extends string> {
  readonly queue: SqlJobQueue<TimerPayload<Kind>>;
  private readonly kinds: readonly Kind[];

  /**
   * `table` names the queue, and the table an older release kept these timers in (created by its owner's migration).
   */
  constructor(
    readonly table: string,
    kinds: Record<Kind, true>,
  ) {
    checkTableName(table);
    this.kinds = Object.keys(kinds) as Kind[];
    this.queue = new SqlJobQueue<TimerPayload<Kind>>(table);
  }

  async schedule(tx: SqlClient, internalReference: string, kind: Kind, dueAt: Date): Promise<void> {
    await this.queue.schedule(
      tx,
      [{ key: keyOf(internalReference, kind), runAt: dueAt, payload: { internalReference, kind } }],
      { replace: true },
    );
  }

  /** Every timer of the reference, or those of `kinds`. */
  async cancel(tx: SqlClient, internalReference: string, kinds?: readonly Kind[]): Promise<void> {
    await this.queue.cancel(
      tx,
      (kinds ?? this.kinds).map((kind) => keyOf(internalReference, kind)),
    );
  }

  /**
   * Applies processes' timer changes, each aggregate's in order, in the caller's transaction: in
   * two statements at most, whatever their number (a projection's page brings many), since only
   * the last change of each timer counts. Scheduling replaces, so a cancel and a schedule after
   * it come to the schedule.
   */
  async apply(tx: SqlClient, changes: readonly AggregateTimerChanges<Kind>[]): Promise<void> {
    const last = new Map<string, { internalReference: string; kind: Kind; at?: string }>();
    for (const { internalReference, changes: own } of changes) {
      for (const change of own) {
        if (change.type === 'Schedule')
          last.set(keyOf(internalReference, change.kind), { internalReference, kind: change.kind, at: change.at });
        else
          for (const kind of change.kinds ?? this.kinds)
            last.set(keyOf(internalReference, kind), { internalReference, kind });
      }
    }
    const outcomes = [...last.entries()];
    await this.queue.schedule(
      tx,
      outcomes.flatMap(([key, { internalReference, kind, at }]) =>
        at === undefined ? [] : [{ key, runAt: new Date(at), payload: { internalReference, kind } }],
      ),
      { replace: true },
    );
    await this.queue.cancel(
      tx,
      outcomes.flatMap(([key, { at }]) => (at === undefined ? [key] : [])),
    );
  }

  /** Up to `limit` due timers, each leased to the caller. */
  async claimDue(db: SqlClient, limit: number): Promise<DueTimer<Kind>[]> {
    return (await this.queue.claim(db, { limit })).map(dueTimerOf);
  }

  /** Done with a claimed timer: forget it unless it was re-scheduled (or claimed again) meanwhile. */
  async complete(db: SqlClient, timer: DueTimer<Kind>): Promise<void> {
    await this.queue.complete(db, [jobOf(timer)]);
  }

  /** Fire a claimed timer again at `at` (polling, or a retry after a failure), unless it was re-scheduled meanwhile. */
  async retryAt(db: SqlClient, timer: DueTimer<Kind>, at: Date): Promise<void> {
    await this.queue.retryLater(db, [{ job: jobOf(timer), at }]);
  }
}

const keyOf = (internalReference: string, kind: string) => `${internalReference}/${kind}`;

/** The timer a claimed job is. */
export function dueTimerOf<Kind extends string>(job: ClaimedJob<TimerPayload<Kind>>): DueTimer<Kind> {
  return {
    internalReference: job.payload.internalReference,
    kind: job.payload.kind,
    dueAt: job.dueAt,
    leaseUntil: job.leaseUntil,
  };
}

function jobOf<Kind extends string>(timer: DueTimer<Kind>): ClaimedJob<TimerPayload<Kind>> {
  const payload = { internalReference: timer.internalReference, kind: timer.kind };
  return {
    key: keyOf(timer.internalReference, timer.kind),
    lane: '',
    payload,
    dueAt: timer.dueAt,
    attempts: 0,
    leaseUntil: timer.leaseUntil,
  };
}
