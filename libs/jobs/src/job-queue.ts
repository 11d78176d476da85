import { migrate, notifyInSchema, type SqlClient, type SqlDatabase } from '@paygate/sql';
import { JOBS_CHANNEL, type ClaimOptions, type JobVerdict, type RunResult, type WorkQueue } from './work-queue';
import { JOBS_MIGRATIONS } from './migrations';

/** A job to schedule: at most one per key in its queue. */
export interface JobToSchedule<Payload> {
  key: string;
  /** When it becomes claimable. */
  runAt: Date;
  /** Its lane: a claim takes at most `laneCap` jobs of one lane in flight (one receiver's host, say). */
  lane?: string;
  payload?: Payload;
}

export interface ClaimedJob<Payload> {
  key: string;
  lane: string;
  payload: Payload;
  /** When it was scheduled to run (a retry keeps it). */
  dueAt: Date;
  /** Claims so far, this one included. */
  attempts: number;
  /**
   * The lease this claim holds: completing or retrying matches it, so a job re-scheduled or claimed again meanwhile is
   * kept.
   */
  leaseUntil: Date;
}

/** A retry with no time of its own waits `baseMs` doubling per attempt, up to `maxMs`. */
export interface Backoff {
  baseMs: number;
  maxMs: number;
}

/**
 * One named queue of durable jobs. Every method takes the client it runs on: a caller's
 * transaction (a projection schedules in the transaction that applies its event) or the database.
 */
export interface JobQueue<Payload> {
  readonly name: string;
  /**
   * Same key twice is one job: kept as it is, or with `replace` moved to the new time and payload (its lease dropped).
   */
  schedule(client: SqlClient, jobs: readonly JobToSchedule<Payload>[], options?: { replace?: boolean }): Promise<void>;
  cancel(client: SqlClient, keys: readonly string[]): Promise<void>;
  /**
   * Brings jobs no claim holds forward to `at`, never later (work they waited on is done); a job under a lease is left
   * to its claim.
   */
  advance(client: SqlClient, moves: readonly { key: string; at: Date }[]): Promise<void>;
  /** Due jobs, oldest first, each leased to the caller; a job whose lease ran out is due again. */
  claim(client: SqlClient, options: ClaimOptions): Promise<ClaimedJob<Payload>[]>;
  /** Forgets jobs still under the lease their claim took. */
  complete(client: SqlClient, jobs: readonly ClaimedJob<Payload>[]): Promise<void>;
  /** Runs jobs still under their claim's lease again at `at`, or after the queue's back-off. */
  retryLater(client: SqlClient, retries: readonly { job: ClaimedJob<Payload>; at?: Date }[]): Promise<void>;
}

const DEFAULT_LEASE_MS = 30_000;
const DEFAULT_BACKOFF: Backoff = { baseMs: 1_000, maxMs: 300_000 };
/** A capped claim reads this many times its limit, so a lane at its cap does not leave the claim empty. */
const WINDOW_FACTOR = 4;
const QUEUE_NAME = /^[a-z][a-z0-9_-]*$/;

export function backoffDelay(backoff: Backoff, attempts: number): number {
  return Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.max(0, Math.min(attempts - 1, 30)));
}

type Row = {
  key: string;
  lane: string;
  payload: unknown;
  due_at: Date | string;
  attempts: number;
  lease_until: Date | string;
};

// The lease is in whole milliseconds: it comes back as a JavaScript Date, and completing matches it exactly.
const LEASE = `(select date_trunc('milliseconds', now() + $3 * interval '1 millisecond') as lease) l`;
const SET_LEASE = `set run_at = l.lease, lease_until = l.lease, attempts = j.attempts + 1`;
const RETURNING = `returning j.key, j.lane, j.payload, j.due_at, j.attempts, j.lease_until`;

/** Every claim of any queue but one that caps lanes: the due end of `jobs_due`, skipping rows another claim holds. */
export const CLAIM = `update jobs j ${SET_LEASE}
  from (select key from jobs where queue = $1 and run_at <= now() order by run_at limit $2 for update skip locked) due, ${LEASE}
  where j.queue = $1 and j.key = due.key ${RETURNING}`;

/**
 * A claim that keeps each lane under its cap: lanes already at the cap are left out of the window
 * (what is in flight is read from `jobs_leased`, as small as the jobs in flight), and within the
 * window each lane takes only the room it has left.
 */
export const CLAIM_CAPPED = `with inflight as (
    select lane, count(*)::int as n from jobs where queue = $1 and lease_until > now() and lease_until is not null group by lane
  ), due as (
    select key, lane, run_at from jobs
    where queue = $1 and run_at <= now() and not (lane = any(array(select lane from inflight where n >= $5)))
    order by run_at limit $4 for update skip locked
  ), picked as (
    select d.key from (select key, lane, run_at, row_number() over (partition by lane order by run_at, key) as rn from due) d
    left join inflight i on i.lane = d.lane
    where d.rn + coalesce(i.n, 0) <= $5
    order by d.run_at limit $2
  )
  update jobs j ${SET_LEASE} from picked, ${LEASE}
  where j.queue = $1 and j.key = picked.key ${RETURNING}`;

const iso = (date: Date) => date.toISOString();

/**
 * `rows` (a data-modifying statement returning `run_at`) with a notification of the earliest
 * `run_at` it wrote, when it wrote any: delivered at commit, so the worker that hears it finds
 * the job.
 */
const announced = (rows: string) =>
  `with written as (${rows} returning run_at)
   select ${notifyInSchema(JOBS_CHANNEL, `$1 || ' ' || (extract(epoch from min(run_at)) * 1000)::bigint::text`)}
   from written having count(*) > 0`;

/** The queue on `jobs` (libs/sql): the same statements on PGlite and PostgreSQL. */
export class SqlJobQueue<Payload = unknown> implements JobQueue<Payload>, WorkQueue<ClaimedJob<Payload>, JobVerdict> {
  /**
   * Applies the `jobs` migrations once per database handle; every user of a queue calls it where it opens its tables.
   */
  static migrate(db: SqlDatabase): Promise<unknown> {
    return migrate(db, JOBS_MIGRATIONS);
  }

  constructor(
    readonly name: string,
    private readonly backoff: Backoff = DEFAULT_BACKOFF,
  ) {
    if (!QUEUE_NAME.test(name)) throw new Error(`job queue name "${name}" must match ${QUEUE_NAME}`);
  }

  async schedule(
    client: SqlClient,
    jobs: readonly JobToSchedule<Payload>[],
    options: { replace?: boolean } = {},
  ): Promise<void> {
    if (jobs.length === 0) return;
    // One row per key: the last one wins, as scheduling them one by one would.
    const byKey = new Map(jobs.map((job) => [job.key, job]));
    const rows = [...byKey.values()];
    await client.query(
      announced(`insert into jobs (queue, key, lane, payload, due_at, run_at)
       select $1, u.key, u.lane, u.payload::jsonb, u.run_at, u.run_at from unnest($2::text[], $3::text[], $4::text[], $5::timestamptz[]) as u(key, lane, payload, run_at)
       on conflict (queue, key) do ${
         options.replace
           ? 'update set lane = excluded.lane, payload = excluded.payload, due_at = excluded.due_at, run_at = excluded.run_at, lease_until = null, attempts = 0'
           : 'nothing'
       }`),
      [
        this.name,
        rows.map((job) => job.key),
        rows.map((job) => job.lane ?? ''),
        rows.map((job) => (job.payload === undefined ? null : JSON.stringify(job.payload))),
        rows.map((job) => iso(job.runAt)),
      ],
    );
  }

  async cancel(client: SqlClient, keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    await client.query('delete from jobs where queue = $1 and key = any($2::text[])', [this.name, keys]);
  }

  async advance(client: SqlClient, moves: readonly { key: string; at: Date }[]): Promise<void> {
    if (moves.length === 0) return;
    await client.query(
      announced(`update jobs j set run_at = u.at
       from unnest($2::text[], $3::timestamptz[]) as u(key, at)
       where j.queue = $1 and j.key = u.key and j.run_at > u.at and (j.lease_until is null or j.lease_until <= now())`),
      [this.name, moves.map((move) => move.key), moves.map((move) => iso(move.at))],
    );
  }

  async claim(
    client: SqlClient,
    { limit, leaseMs = DEFAULT_LEASE_MS, laneCap }: ClaimOptions,
  ): Promise<ClaimedJob<Payload>[]> {
    if (limit <= 0) return [];
    const rows =
      laneCap === undefined
        ? await client.query<Row>(CLAIM, [this.name, limit, leaseMs])
        : await client.query<Row>(CLAIM_CAPPED, [this.name, limit, leaseMs, limit * WINDOW_FACTOR, laneCap]);
    return rows
      .map((row) => ({
        key: row.key,
        lane: row.lane,
        payload: row.payload as Payload,
        dueAt: new Date(row.due_at),
        attempts: Number(row.attempts),
        leaseUntil: new Date(row.lease_until),
      }))
      .sort((a, b) => a.dueAt.getTime() - b.dueAt.getTime());
  }

  /** When the earliest job of this queue is due (a lease running out included), or undefined when it has none. */
  async nextDueAt(client: SqlClient): Promise<Date | undefined> {
    const [row] = await client.query<{ at: Date | string | null }>(
      'select min(run_at) as at from jobs where queue = $1',
      [this.name],
    );
    return row?.at ? new Date(row.at) : undefined;
  }

  async complete(client: SqlClient, jobs: readonly ClaimedJob<Payload>[]): Promise<void> {
    if (jobs.length === 0) return;
    await client.query(
      `delete from jobs j using unnest($2::text[], $3::timestamptz[]) as u(key, lease)
       where j.queue = $1 and j.key = u.key and j.lease_until = u.lease`,
      [this.name, jobs.map((job) => job.key), jobs.map((job) => iso(job.leaseUntil))],
    );
  }

  async retryLater(client: SqlClient, retries: readonly { job: ClaimedJob<Payload>; at?: Date }[]): Promise<void> {
    if (retries.length === 0) return;
    const now = Date.now();
    await client.query(
      announced(`update jobs j set run_at = u.at, lease_until = null
       from unnest($2::text[], $3::timestamptz[], $4::timestamptz[]) as u(key, lease, at)
       where j.queue = $1 and j.key = u.key and j.lease_until = u.lease`),
      [
        this.name,
        retries.map(({ job }) => job.key),
        retries.map(({ job }) => iso(job.leaseUntil)),
        retries.map(({ job, at }) => iso(at ?? new Date(now + backoffDelay(this.backoff, job.attempts)))),
      ],
    );
  }

  /** A worker's verdicts: done jobs forgotten, the others run again. */
  async settle(client: SqlClient, results: readonly RunResult<ClaimedJob<Payload>, JobVerdict>[]): Promise<void> {
    await this.complete(
      client,
      results.filter((s) => s.verdict.done).map((s) => s.job),
    );
    await this.retryLater(
      client,
      results.flatMap((s) => (s.verdict.done ? [] : [{ job: s.job, at: s.verdict.retryAt }])),
    );
  }
}
