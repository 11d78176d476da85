import { withLogContext, type Logger } from '@paygate/logging';
import { listenInSchema, type SqlDatabase } from '@paygate/sql';
import {
  JOBS_CHANNEL,
  parseJobsNotification,
  type JobVerdict,
  type LeasedJob,
  type RunResult,
  type WorkQueue,
} from './work-queue';

/** How soon a worker looks again at jobs that are due but that its claim could not take. */
const BLOCKED_RETRY_MS = 1_000;

export interface JobWorkerOptions<Job extends LeasedJob, Verdict, Settlement> {
  queue: WorkQueue<Job, Verdict, Settlement>;
  sql: SqlDatabase;
  /** A run that throws is logged and its job left to its lease: it runs again once the lease runs out. */
  run: (job: Job) => Promise<Verdict>;
  /** After a batch of verdicts is committed, with what `settle` made of it; a failure is logged. */
  settled?: (settlement: Settlement, results: readonly RunResult<Job, Verdict>[]) => Promise<void>;
  /**
   * The longest the worker goes without looking for due jobs: a fallback, since the statements
   * that make jobs due notify it (JOBS_CHANNEL) and it knows when the next one is due.
   */
  tickMs: number;
  log: Logger;
  /** Most jobs running at once in this worker (default 50). */
  maxInFlight?: number;
  laneCap?: number;
  leaseMs?: number;
}

/**
 * Runs one queue's due jobs when they are due: told by the notification of the statement that
 * scheduled them (from any process), or at the time the queue says its next job is due (a retry,
 * a lease that runs out), or on wake(); every `tickMs` at the latest. Any number of workers may
 * run, leases keep them apart. A tick does not wait for the runs it starts, so one slow run does not
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
  /** When the armed timer fires (epoch ms). */
  private timerAt = Infinity;
  /** The earliest due time heard of while a claim ran, for the timer armed after it. */
  private heardDueAt = Infinity;
  private listening?: Promise<(() => Promise<void>) | undefined>;
  /** The last claim left due jobs behind (no room, or lanes at their cap): a settled batch frees room for them. */
  private leftDue = false;
  /**
   * When the leases of this worker's unsettled jobs run out (epoch ms), with how many jobs hold each: the queue's next
   * due time is often one of them, and once its jobs are settled nothing is due then.
   */
  private readonly ownLeases = new Map<number, number>();
  /** Leases given up while a claim ran: the timer armed after it may be for one of them. */
  private readonly releasedDuringClaim = new Set<number>();

  constructor(private readonly options: JobWorkerOptions<Job, Verdict, Settlement>) {}

  start(): void {
    this.started = true;
    this.listen();
    this.wake();
  }

  /** Hears the statements that make this queue's jobs due; without it (not listening yet) the fallback looks. */
  private listen(): void {
    const { sql, queue, log } = this.options;
    this.listening = listenInSchema(sql, JOBS_CHANNEL, (payload) => {
      if (payload === undefined) return this.wake();
      const notice = parseJobsNotification(payload);
      if (notice?.queue === queue.name) this.dueAt(notice.dueAtMs);
    }).catch((error: unknown) => {
      log.warn('cannot listen for due jobs; looking every tick', { queue: queue.name, error });
      return undefined;
    });
  }

  /** A job is due at `atMs`: claim then, unless a look is planned before. */
  private dueAt(atMs: number): void {
    if (!this.started || this.stopped) return;
    if (atMs <= Date.now()) return this.wake();
    if (this.running) this.heardDueAt = Math.min(this.heardDueAt, atMs);
    else if (atMs < this.timerAt) this.schedule(atMs - Date.now(), atMs);
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
    await (await this.listening)?.().catch(() => undefined);
    await this.running;
    await Promise.all(this.inFlight);
    await this.settle();
    await this.settling;
  }

  /** Arms the timer in `delayMs`; `at`, when given, is the due time it is for (what lookPastReleased compares). */
  private schedule(delayMs: number, at = Date.now() + delayMs): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timerAt = Infinity;
      this.heardDueAt = Infinity;
      // A claim serves every job: it must not run in the log context of the work that woke it.
      this.running = withLogContext({}, () => this.tick()).then(
        (nextDueAt) => this.afterTick(nextDueAt),
        () => this.afterTick(undefined),
      );
    }, delayMs);
  }

  private afterTick(nextDueAt: number | undefined): void {
    this.running = undefined;
    const again = this.tickAgain;
    this.tickAgain = false;
    const now = Date.now();
    const { tickMs } = this.options;
    // Due yet left by the claim (its lane at the cap, or held by another claim): what frees it may be another
    // process's, which notifies nothing, so look again shortly rather than at once.
    const due = nextDueAt !== undefined && nextDueAt <= now ? now + Math.min(BLOCKED_RETRY_MS, tickMs) : nextDueAt;
    const next = Math.min(due ?? Infinity, this.heardDueAt, now + tickMs);
    if (again) this.schedule(0);
    else this.schedule(Math.max(0, next - now), next);
    const released = new Set(this.releasedDuringClaim);
    this.releasedDuringClaim.clear();
    void this.lookPastReleased(released);
  }

  /** Claims what is due; returns when the next job is due when the claim left room (it took all there was). */
  private async tick(): Promise<number | undefined> {
    const { queue, sql, log } = this.options;
    void this.settle();
    const room = (this.options.maxInFlight ?? 50) - this.inFlight.size;
    this.leftDue = true;
    if (room <= 0) return undefined;
    let claimed: Job[];
    try {
      claimed = await queue.claim(sql, { limit: room, laneCap: this.options.laneCap, leaseMs: this.options.leaseMs });
    } catch (error) {
      log.warn('cannot claim due jobs', { queue: queue.name, error });
      return undefined;
    }
    // Each run gets its own log context, which joins the flow of what it acts on.
    for (const job of claimed) {
      const lease = job.leaseUntil.getTime();
      this.ownLeases.set(lease, (this.ownLeases.get(lease) ?? 0) + 1);
      const run = withLogContext({}, () => this.runOne(job)).finally(() => this.inFlight.delete(run));
      this.inFlight.add(run);
    }
    // A full claim leaves more behind: the settling of its runs wakes the worker for them.
    if (claimed.length >= room) return undefined;
    let nextDueAt: number | undefined;
    try {
      nextDueAt = (await queue.nextDueAt(sql))?.getTime();
    } catch (error) {
      log.warn('cannot read when the next job is due', { queue: queue.name, error });
      return undefined;
    }
    this.leftDue = nextDueAt !== undefined && nextDueAt <= Date.now();
    return nextDueAt;
  }

  private async runOne(job: Job): Promise<void> {
    const { queue, run, log } = this.options;
    let verdict: Verdict;
    try {
      verdict = await run(job);
    } catch (error) {
      log.warn('job failed; will retry', { queue: queue.name, key: job.key, error });
      // Its lease stays: it runs again when that runs out.
      this.forgetLeases([job]);
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
    const released = new Set<number>();
    while (this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      let settlement: Settlement;
      try {
        settlement = await sql.transaction((tx) => queue.settle(tx, batch));
      } catch (error) {
        log.warn('cannot settle jobs; will try again', { queue: queue.name, jobs: batch.length, error });
        const now = Date.now();
        const [live, lapsed] = partition(batch, (s) => s.job.leaseUntil.getTime() > now);
        this.pending.push(...live);
        this.forgetLeases(lapsed.map((s) => s.job));
        this.failedToSettle = true;
        return;
      }
      for (const lease of this.forgetLeases(batch.map((s) => s.job))) released.add(lease);
      await settled?.(settlement, batch).catch((error: unknown) =>
        log.warn('cannot finish settled jobs', { queue: queue.name, error }),
      );
      // Their slots are free: jobs the last claim had to leave may be taken now.
      if (this.leftDue) this.wake();
    }
    if (this.running) for (const lease of released) this.releasedDuringClaim.add(lease);
    await this.lookPastReleased(released);
  }

  /** Stops counting `jobs`' leases; returns the lease times no unsettled job of this worker holds any more. */
  private forgetLeases(jobs: readonly Job[]): number[] {
    const gone: number[] = [];
    for (const job of jobs) {
      const lease = job.leaseUntil.getTime();
      const left = (this.ownLeases.get(lease) ?? 0) - 1;
      if (left > 0) this.ownLeases.set(lease, left);
      else if (this.ownLeases.delete(lease)) gone.push(lease);
    }
    return gone;
  }

  /**
   * The timer waits for a lease this worker has just given up (its jobs settled): asks the queue when its next job is
   * due instead, so an idle worker does not claim for nothing when that lease would have run out.
   */
  private async lookPastReleased(released: ReadonlySet<number>): Promise<void> {
    const armedAt = this.timerAt;
    if (!released.has(armedAt) || this.running || this.stopped) return;
    let nextDueAt: number | undefined;
    try {
      nextDueAt = (await this.options.queue.nextDueAt(this.options.sql))?.getTime();
    } catch {
      return; // The armed timer stays: a claim for nothing, but a claim.
    }
    // A claim, a wake or a notice meanwhile armed a timer of its own, which knows better.
    if (this.timerAt !== armedAt || this.running || this.stopped) return;
    const now = Date.now();
    const next = Math.min(nextDueAt ?? Infinity, now + this.options.tickMs);
    this.schedule(Math.max(0, next - now), next);
  }
}

function partition<T>(items: readonly T[], test: (item: T) => boolean): [T[], T[]] {
  const yes: T[] = [];
  const no: T[] = [];
  for (const item of items) (test(item) ? yes : no).push(item);
  return [yes, no];
}
