import { withLogContext, type Logger } from '@paygate/logging';
import type { SqlDatabase } from '@paygate/sql';
import type { DueTimer, LeasedTimers } from './leased-timers';

/** Most timers in flight at once per worker. */
const BATCH = 50;
const RETRY_AFTER_FAILURE_MS = 5_000;

/** What a fired timer asks of the worker: forget it, or fire it again later. */
export type TimerVerdict = { done: true } | { done: false; retryAt: Date };

export interface TimerWorkerOptions<Kind extends string> {
  timers: LeasedTimers<Kind>;
  sql: SqlDatabase;
  fire: (timer: DueTimer<Kind>) => Promise<TimerVerdict>;
  tickMs: number;
  log: Logger;
}

/**
 * Fires the due timers of one table every tick; any number of instances may run, claims keep
 * them apart. A tick does not wait for the fires it starts, so one slow fire (a provider status
 * call up to its timeout) does not hold back the deadlines behind it. A fire that throws is
 * logged and retried after RETRY_AFTER_FAILURE_MS.
 */
export class TimerWorker<Kind extends string> {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = false;

  constructor(private readonly options: TimerWorkerOptions<Kind>) {}

  start(): void {
    this.schedule();
  }

  /** Stops ticking and waits for the tick and the fires under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    await Promise.all(this.inFlight);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick().finally(() => this.schedule());
    }, this.options.tickMs);
  }

  private async tick(): Promise<void> {
    const { timers, sql, log } = this.options;
    const room = BATCH - this.inFlight.size;
    if (room <= 0) return;
    let due: DueTimer<Kind>[];
    try {
      due = await timers.claimDue(sql, room);
    } catch (error) {
      log.warn('cannot claim due timers', { table: timers.table, error });
      return;
    }
    // Each firing gets its own log context, which joins the flow of the stream it acts on (DeciderRuntime).
    for (const timer of due) {
      const firing = withLogContext({}, () => this.fireOne(timer)).finally(() => this.inFlight.delete(firing));
      this.inFlight.add(firing);
    }
  }

  private async fireOne(timer: DueTimer<Kind>): Promise<void> {
    const { timers, sql, fire, log } = this.options;
    try {
      const verdict = await fire(timer);
      if (verdict.done) await timers.complete(sql, timer);
      else await timers.retryAt(sql, timer, verdict.retryAt);
    } catch (error) {
      log.warn('timer failed; will retry', { table: timers.table, internal_reference: timer.internalReference, kind: timer.kind, error });
      await timers.retryAt(sql, timer, new Date(Date.now() + RETRY_AFTER_FAILURE_MS)).catch(() => undefined);
    }
  }
}
