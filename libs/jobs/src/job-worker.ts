import { withLogContext, type Logger } from '@paygate/logging';
import type { SqlDatabase } from '@paygate/sql';
import type { ClaimedJob, JobQueue } from './job-queue';

/** What running a job asks of the worker: forget it, or run it again at `retryAt` (or after the queue's back-off). */
export type JobVerdict = { done: true } | { done: false; retryAt?: Date };

export interface JobWorkerOptions<Payload> {
  queue: JobQueue<Payload>;
  sql: SqlDatabase;
  run: (job: ClaimedJob<Payload>) => Promise<JobVerdict>;
  tickMs: number;
  log: Logger;
  /** Most jobs running at once in this worker (default 50). */
  maxInFlight?: number;
  laneCap?: number;
  leaseMs?: number;
  /** A job whose run throws runs again this much later (default 5 s). */
  retryAfterFailureMs?: number;
  /** Runs before each claim (adopting rows an older release left elsewhere); a failure is logged and the claim goes on. */
  beforeClaim?: () => Promise<void>;
}

type Settled<Payload> = { job: ClaimedJob<Payload>; verdict: JobVerdict };

/**
 * Runs one queue's due jobs every tick; any number of workers may run, leases keep them apart. A
 * tick does not wait for the runs it starts, so one slow run does not hold back the jobs behind
 * it. Verdicts are settled in batches: whatever finished while the last batch was being written
 * goes in the next one, one transaction each, so settling costs a round trip per batch, not per
 * job. A verdict that cannot be written is kept for the next tick while its lease lasts; after
 * that the job is claimed again, which its runner makes harmless.
 */
export class JobWorker<Payload> {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private settling?: Promise<void>;
  private readonly inFlight = new Set<Promise<void>>();
  private pending: Settled<Payload>[] = [];
  private failedToSettle = false;
  private stopped = false;

  constructor(private readonly options: JobWorkerOptions<Payload>) {}

  start(): void {
    this.schedule();
  }

  /** Stops claiming, waits for the runs under way and settles their verdicts. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    await Promise.all(this.inFlight);
    await this.settle();
    await this.settling;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick().finally(() => this.schedule());
    }, this.options.tickMs);
  }

  private async tick(): Promise<void> {
    const { queue, sql, log, beforeClaim } = this.options;
    void this.settle();
    const room = (this.options.maxInFlight ?? 50) - this.inFlight.size;
    if (room <= 0) return;
    if (beforeClaim) await beforeClaim().catch((error: unknown) => log.warn('cannot prepare the claim', { queue: queue.name, error }));
    let claimed: ClaimedJob<Payload>[];
    try {
      claimed = await queue.claim(sql, { limit: room, laneCap: this.options.laneCap, leaseMs: this.options.leaseMs });
    } catch (error) {
      log.warn('cannot claim due jobs', { queue: queue.name, error });
      return;
    }
    // Each run gets its own log context, which joins the flow of what it acts on.
    for (const job of claimed) {
      const run = withLogContext({}, () => this.runOne(job)).finally(() => this.inFlight.delete(run));
      this.inFlight.add(run);
    }
  }

  private async runOne(job: ClaimedJob<Payload>): Promise<void> {
    const { queue, run, log } = this.options;
    let verdict: JobVerdict;
    try {
      verdict = await run(job);
    } catch (error) {
      log.warn('job failed; will retry', { queue: queue.name, key: job.key, error });
      verdict = { done: false, retryAt: new Date(Date.now() + (this.options.retryAfterFailureMs ?? 5_000)) };
    }
    this.pending.push({ job, verdict });
    void this.settle();
  }

  /** Writes the verdicts gathered so far, one batch at a time; a call while a batch is being written joins it. */
  private settle(): Promise<void> {
    this.settling ??= this.settleAll().finally(() => {
      this.settling = undefined;
      // Verdicts that came after the last batch was taken, but before it ended, go next (after a failure, on the next tick).
      if (this.pending.length > 0 && !this.failedToSettle) void this.settle();
    });
    return this.settling;
  }

  private async settleAll(): Promise<void> {
    const { queue, sql, log } = this.options;
    // Runs that finish together (one slow call answered for many) join one batch.
    await new Promise((resolve) => setImmediate(resolve));
    this.failedToSettle = false;
    while (this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      const done = batch.filter((s) => s.verdict.done).map((s) => s.job);
      const retries = batch.flatMap((s) => (s.verdict.done ? [] : [{ job: s.job, at: s.verdict.retryAt }]));
      try {
        await sql.transaction(async (tx) => {
          await queue.complete(tx, done);
          await queue.retryLater(tx, retries);
        });
      } catch (error) {
        log.warn('cannot settle jobs; will try again', { queue: queue.name, jobs: batch.length, error });
        const now = Date.now();
        this.pending.push(...batch.filter((s) => s.job.leaseUntil.getTime() > now));
        this.failedToSettle = true;
        return;
      }
    }
  }
}
