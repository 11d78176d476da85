import { migrate, type SqlClient, type SqlDatabase } from '@paygate/sql';
import type { JobsDialect } from './jobs-dialect';
import { JOBS_MIGRATIONS } from './migrations';
import { POSTGRES_DIALECT } from './postgres-dialect';
import { SQLITE_DIALECT } from './sqlite-dialect';
import type { ClaimOptions, JobVerdict, RunResult, WorkQueue } from './work-queue';

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

/** Each dialect's statements, by SqlClient.dialect: a queue serves whichever database its caller's client is on. */
const DIALECTS: Record<SqlClient['dialect'], JobsDialect> = { postgres: POSTGRES_DIALECT, sqlite: SQLITE_DIALECT };

/** The queue on `jobs` (libs/sql): PostgreSQL's statements on PGlite and PostgreSQL, SQLite's on SQLite. */
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
    await DIALECTS[client.dialect].schedule(
      client,
      this.name,
      [...byKey.values()].map((job) => ({
        key: job.key,
        lane: job.lane ?? '',
        payload: job.payload === undefined ? null : JSON.stringify(job.payload),
        runAt: job.runAt,
      })),
      options.replace ?? false,
    );
  }

  async cancel(client: SqlClient, keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    await DIALECTS[client.dialect].cancel(client, this.name, keys);
  }

  async advance(client: SqlClient, moves: readonly { key: string; at: Date }[]): Promise<void> {
    if (moves.length === 0) return;
    await DIALECTS[client.dialect].advance(client, this.name, moves);
  }

  async claim(
    client: SqlClient,
    { limit, leaseMs = DEFAULT_LEASE_MS, laneCap }: ClaimOptions,
  ): Promise<ClaimedJob<Payload>[]> {
    if (limit <= 0) return [];
    const rows = await DIALECTS[client.dialect].claim(client, this.name, {
      limit,
      leaseMs,
      laneCap,
      window: limit * WINDOW_FACTOR,
    });
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
    await DIALECTS[client.dialect].complete(
      client,
      this.name,
      jobs.map((job) => ({ key: job.key, lease: job.leaseUntil })),
    );
  }

  async retryLater(client: SqlClient, retries: readonly { job: ClaimedJob<Payload>; at?: Date }[]): Promise<void> {
    if (retries.length === 0) return;
    const now = Date.now();
    await DIALECTS[client.dialect].retry(
      client,
      this.name,
      retries.map(({ job, at }) => ({
        key: job.key,
        lease: job.leaseUntil,
        at: at ?? new Date(now + backoffDelay(this.backoff, job.attempts)),
      })),
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
