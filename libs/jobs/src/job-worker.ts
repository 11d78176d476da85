import { withLogContext, type Logger } from '@paygate/logging';
import type { SqlClient, SqlDatabase } from '@paygate/sql';
import type { ClaimOptions } from './job-queue';

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
}

export interface JobWorkerOptions<Job extends LeasedJob, Verdict, Settlement> {
  queue: WorkQueue<Job, Verdict, Settlement>;
  sql: SqlDatabase;
  /** A run that throws is logged and its job left to its lease: it runs again once the lease runs out. */
  run: (job: Job) => Promise<Verdict>;
  /** After a batch of verdicts is committed, with what `settle` made of it; a failure is logged. */
  settled?: (settlement: Settlement, results: readonly RunResult<Job, Verdict>[]) => Promise<void>;
  /** How often to look for due jobs when nothing wakes the worker. */
  tickMs: number;
  log: Logger;
  /** Most jobs running at once in this worker (default 50). */
  maxInFlight?: number;
  laneCap?: number;
  leaseMs?: number;
}

/**
 * Runs one queue's due jobs every tick, or at once on wake(); any number of workers may run,
 * leases keep them apart. A tick does not wait for the runs it starts, so one slow run does not
 * hold back the jobs behind it. Verdicts are settled in batches: whatever finished while the last
 * batch was being written goes in the next one, one transaction each, so settling costs a round
 * trip per batch, not per job. A verdict that cannot be written is kept for the next tick while
 * its lease lasts; after that the job is claimed again, which its runner makes harmless.
 */
export class JobWorker<Job extends LeasedJob, Verdict = JobVerdict, Settlement = void> {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private tickAgain = false;
  private settling?: Promise<void>;
  private readonly inFlight = new Set<Promise<void>>();
  private pending: RunResult<Job, Verdict>[] = [];
  private failedToSettle = false;
  private started = false;
  private stopped = false;

  constructor(private readonly options: JobWorkerOptions<Job, Verdict, Settlement>) {}

  start(): void {
    this.started = true;
    this.wake();
  }

  /** Claims now rather than at the next tick (work was just queued); wake-ups during a claim make one more after it. */
  wake(): void {
    if (!this.started || this.stopped) return;
    if (this.running) this.tickAgain = true;
    else this.schedule(0);
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

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      // A claim serves every job: it must not run in the log context of the work that woke it.
      this.running = withLogContext({}, () => this.tick()).finally(() => {
        this.running = undefined;
        const again = this.tickAgain;
        this.tickAgain = false;
        this.schedule(again ? 0 : this.options.tickMs);
      });
    }, delayMs);
  }

  private async tick(): Promise<void> {
    const { queue, sql, log } = this.options;
    void this.settle();
    const room = (this.options.maxInFlight ?? 50) - this.inFlight.size;
    if (room <= 0) return;
    let claimed: Job[];
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

  private async runOne(job: Job): Promise<void> {
    const { queue, run, log } = this.options;
    let verdict: Verdict;
    try {
      verdict = await run(job);
    } catch (error) {
      log.warn('job failed; will retry', { queue: queue.name, key: job.key, error });
      return;
    }
    // Pushed once the run is over: a batch taken meanwhile has replaced `pending`.
    this.pending.push({ job, verdict });
    void this.settle();
  }

  /** Writes the verdicts gathered so far, one batch at a time; a call while a batch is being written joins it. */
  private settle(): Promise<void> {
    // A batch holds many jobs' verdicts: it must not run (and log) in the context of the run that started it.
    this.settling ??= withLogContext({}, () => this.settleAll()).finally(() => {
      this.settling = undefined;
      // Verdicts that came after the last batch was taken, but before it ended, go next (after a failure, on the next
      // tick).
      if (this.pending.length > 0 && !this.failedToSettle) void this.settle();
    });
    return this.settling;
  }

  private async settleAll(): Promise<void> {
    const { queue, sql, log, settled } = this.options;
    // Runs that finish together (one slow call answered for many) join one batch.
    await new Promise((resolve) => setImmediate(resolve));
    this.failedToSettle = false;
    while (this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      let settlement: Settlement;
      try {
        settlement = await sql.transaction((tx) => queue.settle(tx, batch));
      } catch (error) {
        log.warn('cannot settle jobs; will try again', { queue: queue.name, jobs: batch.length, error });
        const now = Date.now();
        this.pending.push(...batch.filter((s) => s.job.leaseUntil.getTime() > now));
        this.failedToSettle = true;
        return;
      }
      await settled?.(settlement, batch).catch((error: unknown) =>
        log.warn('cannot finish settled jobs', { queue: queue.name, error }),
      );
      // Their slots are free, and what waited on them may be due.
      this.wake();
    }
  }
}
