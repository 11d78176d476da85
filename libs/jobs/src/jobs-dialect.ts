import type { SqlClient } from '@paygate/sql';

/** A job row as a claim brings it back: times as each engine answers them (a Date, ISO text or epoch ms). */
export interface JobRow {
  key: string;
  lane: string;
  payload: unknown;
  due_at: Date | string | number;
  attempts: number;
  lease_until: Date | string | number;
}

/** A job about to be written: one per key, its payload JSON text or null. */
export interface EncodedJob {
  key: string;
  lane: string;
  payload: string | null;
  runAt: Date;
}

/**
 * The statements of the job queue in one dialect (SqlClient.dialect): SqlJobQueue keeps the rest.
 * Those that make a job due (schedule, advance, retryLater) notify JOBS_CHANNEL with the earliest
 * `run_at` they wrote, delivered at commit.
 */
export interface JobsDialect {
  /** Inserts the jobs; a key already in the queue is kept, or with `replace` moved to the new time and payload. */
  schedule(client: SqlClient, queue: string, jobs: readonly EncodedJob[], replace: boolean): Promise<void>;
  cancel(client: SqlClient, queue: string, keys: readonly string[]): Promise<void>;
  /** Brings jobs no lease holds forward to `at`, never later. */
  advance(client: SqlClient, queue: string, moves: readonly { key: string; at: Date }[]): Promise<void>;
  /**
   * Leases the due jobs, the longest due first, up to `limit`; with `laneCap`, no lane past its cap of jobs under a
   * lease, reading at most `window` due jobs.
   */
  claim(
    client: SqlClient,
    queue: string,
    options: { limit: number; leaseMs: number; laneCap?: number; window: number },
  ): Promise<JobRow[]>;
  /** Forgets the jobs still under these leases. */
  complete(client: SqlClient, queue: string, leases: readonly { key: string; lease: Date }[]): Promise<void>;
  /** Runs the jobs still under these leases again at `at`. */
  retry(client: SqlClient, queue: string, retries: readonly { key: string; lease: Date; at: Date }[]): Promise<void>;
}
