import { JobWorker, type ClaimedJob } from '@paygate/jobs';
import type { Logger } from '@paygate/logging';
import type { SqlDatabase } from '@paygate/sql';
import { inSpan } from '@paygate/tracing';
import { dueTimerOf, type DueTimer, type LeasedTimers, type TimerPayload } from './leased-timers';

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
 * Fires the due timers of one queue every tick, on the job queue's worker (libs/jobs): any
 * number of instances may run, leases keep them apart, a slow fire does not hold back the
 * deadlines behind it, and verdicts are written in batches. A fire that throws is logged and
 * retried after RETRY_AFTER_FAILURE_MS. Each fire is a trace of its own, which links to the trace
 * that started the timer's stream (the decider runtime adds the link when it loads the stream).
 */
export class TimerWorker<Kind extends string> {
  private readonly worker: JobWorker<ClaimedJob<TimerPayload<Kind>>>;

  constructor({ timers, sql, fire, tickMs, log }: TimerWorkerOptions<Kind>) {
    this.worker = new JobWorker({
      queue: timers.queue,
      sql,
      tickMs,
      log,
      maxInFlight: BATCH,
      run: async (job) => {
        const timer = dueTimerOf(job);
        try {
          return await inSpan(
            `timer ${timer.kind}`,
            { attributes: { 'paygate.timer': timers.table, 'paygate.internal_reference': timer.internalReference } },
            () => fire(timer),
          );
        } catch (error) {
          log.warn('timer failed; will retry', {
            table: timers.table,
            internal_reference: timer.internalReference,
            kind: timer.kind,
            error,
          });
          return { done: false, retryAt: new Date(Date.now() + RETRY_AFTER_FAILURE_MS) };
        }
      },
    });
  }

  start(): void {
    this.worker.start();
  }

  /** Stops ticking and waits for the tick and the fires under way, whose verdicts it writes. */
  stop(): Promise<void> {
    return this.worker.stop();
  }
}
