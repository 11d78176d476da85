import type { SqlClient, SqlDatabase } from '@paygate/sql';

/*
 * What a job queue and the worker that runs it share: the worker's view of a queue, a claim's
 * options and the notification that says a job is due. Both job-queue.ts and job-worker.ts import
 * this, neither imports the other.
 */

export interface ClaimOptions {
  limit: number;
  /** How long the claim holds a job before another may claim it again. */
  leaseMs?: number;
  /** Most jobs of one lane under a lease at once, across every claimer. */
  laneCap?: number;
}

/** What running a job asks of the worker: forget it, or run it again at `retryAt` (or after the queue's back-off). */
export type JobVerdict = { done: true } | { done: false; retryAt?: Date };

/** A claimed job as the worker sees it: its key, and the lease its claim holds. */
export interface LeasedJob {
  key: string;
  leaseUntil: Date;
}

/** One run's verdict on its job. */
export interface RunResult<Job, Verdict> {
  job: Job;
  verdict: Verdict;
}

/**
 * The queue a worker runs: due jobs leased to it, and the verdicts of their runs written back, a
 * batch per transaction. `SqlJobQueue` is one (verdicts are JobVerdicts); a context may wrap one
 * in rules of its own (the callback deliveries: order per transaction, attempts recorded).
 */
export interface WorkQueue<Job extends LeasedJob, Verdict, Settlement = void> {
  readonly name: string;
  claim(sql: SqlDatabase, options: ClaimOptions): Promise<Job[]>;
  /** Writes a batch of verdicts in `tx`; what it returns goes to the worker's `settled`, once committed. */
  settle(tx: SqlClient, results: readonly RunResult<Job, Verdict>[]): Promise<Settlement>;
  /** When its earliest job is due, a lease running out included; undefined when it has none. */
  nextDueAt(sql: SqlClient): Promise<Date | undefined>;
}

/** Where the statements that make jobs due say so: `<queue> <earliest run_at in epoch ms>` (JobWorker listens). */
export const JOBS_CHANNEL = 'paygate_jobs';

/** A notification of JOBS_CHANNEL read back: which queue, and when its earliest new job is due. */
export function parseJobsNotification(payload: string): { queue: string; dueAtMs: number } | undefined {
  const match = /^(\S+) (\d+)$/.exec(payload);
  return match ? { queue: match[1], dueAtMs: Number(match[2]) } : undefined;
}
