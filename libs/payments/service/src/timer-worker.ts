import type { Logger } from '@paygate/logging';
import type { DuePaymentTimer, PaymentTimers } from './payment-timers';

const BATCH = 50;
const RETRY_AFTER_FAILURE_MS = 5_000;

/** What a fired timer asks of the worker: forget it, or fire it again later. */
export type TimerVerdict = { done: true } | { done: false; retryAt: Date };

/** Fires due payment timers every tick; any number of instances may run, claims keep them apart. */
export class PaymentTimerWorker {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly timers: PaymentTimers,
    private readonly fire: (timer: DuePaymentTimer) => Promise<TimerVerdict>,
    private readonly tickMs: number,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick().finally(() => this.schedule());
    }, this.tickMs);
  }

  private async tick(): Promise<void> {
    let due: DuePaymentTimer[];
    try {
      due = await this.timers.claimDue(BATCH);
    } catch (error) {
      this.log.warn('cannot claim due payment timers', { error });
      return;
    }
    await Promise.all(due.map((timer) => this.fireOne(timer)));
  }

  private async fireOne(timer: DuePaymentTimer): Promise<void> {
    try {
      const verdict = await this.fire(timer);
      if (verdict.done) await this.timers.complete(timer);
      else await this.timers.retryAt(timer, verdict.retryAt);
    } catch (error) {
      this.log.warn('payment timer failed; will retry', { internal_reference: timer.internalReference, kind: timer.kind, error });
      await this.timers.retryAt(timer, new Date(Date.now() + RETRY_AFTER_FAILURE_MS)).catch(() => undefined);
    }
  }
}
