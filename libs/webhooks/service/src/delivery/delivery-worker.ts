import { withLogContext, type Logger } from '@paygate/logging';
import type { Counter, Metrics } from '@paygate/metrics';
import type { AttemptOutcome, CallbackSender } from './callback-sender';
import type { DeliveryConfig } from './delivery-config';
import type { CallbackStream } from './callback-stream';
import type { ClaimedDelivery, DeliveryState, DeliveryStore } from './delivery-store';

/** How often deliveries without a job (an older release's, or one a cut left) are given one. */
const ADOPT_EVERY_MS = 60_000;

export interface DeliveryWorkerOptions {
  store: DeliveryStore;
  sender: CallbackSender;
  /** The merchant's signing key, or null when the merchant no longer has one. */
  keys: (merchantId: string) => Promise<string | null>;
  /** tickMs: how often to look unprompted; maxInFlight: attempts this worker runs at once. */
  config: Pick<DeliveryConfig, 'tickMs' | 'maxInFlight'>;
  log: Logger;
  metrics: Metrics;
  /** Where each attempt's signed body and headers are recorded for `paygate listen`; none in specs that do not need it. */
  stream?: CallbackStream;
}

/**
 * Sends due callbacks: every tick, or at once on notify(), it claims as many as it has free slots
 * and sends each on its own, so a slow receiver holds one slot, never the loop. Any number of
 * workers may share a store; claims keep them apart.
 */
export class DeliveryWorker {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly attempts: Counter<'outcome'>;
  private timer?: NodeJS.Timeout;
  private adopting?: NodeJS.Timeout;
  private claiming?: Promise<void>;
  private recording?: Promise<void>;
  private unrecorded: { claimed: ClaimedDelivery; outcome: AttemptOutcome; done: (state: DeliveryState | undefined | Error) => void }[] = [];
  private claimAgain = false;
  private wakeScheduled = false;
  private stopped = false;

  constructor(private readonly options: DeliveryWorkerOptions) {
    this.attempts = options.metrics.counter({
      name: 'paygate_callback_attempts_total',
      help: 'Callback attempts by outcome: delivered, retrying (pending again), abandoned (410 or schedule spent), superseded (claim expired meanwhile), not_sent (our failure; retried when the claim expires).',
      labelNames: ['outcome'],
    });
  }

  start(): void {
    if (this.timer) return;
    this.stopped = false;
    this.timer = setInterval(() => this.notify(), this.options.config.tickMs);
    const adopt = () =>
      this.options.store.adoptUnqueued().catch((error: unknown) => this.options.log.warn('cannot queue deliveries left without a job', { error }));
    void adopt();
    this.adopting = setInterval(() => void adopt(), ADOPT_EVERY_MS);
    this.notify();
  }

  /** Looks for due deliveries now (call after enqueue), rather than on the next tick. */
  notify(): void {
    if (this.stopped || !this.timer || this.wakeScheduled) return;
    // Wake-ups in one turn of the event loop (a burst of finished attempts) make one claim, and
    // network events get their turn between claims.
    this.wakeScheduled = true;
    // A claim serves every flow: it must not run in the log context of the work that woke it.
    setImmediate(() =>
      withLogContext({}, () => {
        this.wakeScheduled = false;
        this.claim();
      }),
    );
  }

  /** Claims nothing more and waits for the attempts in flight to be sent and recorded. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    clearInterval(this.adopting);
    this.timer = undefined;
    await this.claiming;
    await Promise.all(this.inFlight);
  }

  private claim(): void {
    if (this.stopped) return;
    // Wake-ups during a claim fold into one more claim after it.
    if (this.claiming) {
      this.claimAgain = true;
      return;
    }
    this.claiming = this.claimAndSend().finally(() => {
      this.claiming = undefined;
      if (this.claimAgain) {
        this.claimAgain = false;
        this.notify();
      }
    });
  }

  private async claimAndSend(): Promise<void> {
    let claimed: ClaimedDelivery[];
    try {
      claimed = await this.options.store.claimDue(this.options.config.maxInFlight - this.inFlight.size);
    } catch (error) {
      this.options.log.warn('cannot claim due callbacks', { error });
      return;
    }
    // One look-up per merchant per claim: its callbacks in the batch are signed with the key it had when they were claimed.
    const signingKeys = new Map<string, Promise<string | null>>();
    const keyOf = (merchantId: string) => {
      let key = signingKeys.get(merchantId);
      if (!key) signingKeys.set(merchantId, (key = this.options.keys(merchantId)));
      return key;
    };
    for (const delivery of claimed) {
      const attempt = this.deliver(delivery, keyOf).finally(() => {
        this.inFlight.delete(attempt);
        // A free slot, and maybe the next callback of the same transaction now in order.
        this.notify();
      });
      this.inFlight.add(attempt);
    }
  }

  private async deliver(delivery: ClaimedDelivery, keys: (merchantId: string) => Promise<string | null>): Promise<void> {
    const { sender, log } = this.options;
    const fields = { webhook_id: delivery.webhookId, merchant_id: delivery.merchantId, internal_reference: delivery.internalReference };
    let outcome: AttemptOutcome;
    try {
      const signingKey = await keys(delivery.merchantId);
      outcome = signingKey === null ? noKey() : await sender.send(delivery, signingKey, (headers) => this.recordInStream(delivery, headers));
    } catch (error) {
      // Our failure, not the receiver's: no attempt is charged, the lease hands the delivery back.
      this.attempts.inc(NOT_SENT);
      log.warn('cannot send callback; it will be retried when its claim expires', { ...fields, error });
      return;
    }
    try {
      const state = await this.record(delivery, outcome);
      this.attempts.inc(OUTCOMES[state ?? 'superseded']);
      const result = { ...fields, event: delivery.eventName, status: outcome.statusCode, error: outcome.error, duration_ms: outcome.durationMs, state };
      if (state === 'abandoned') log.warn('callback abandoned', result);
      else log.info('callback attempt', result);
    } catch (error) {
      // The attempt is lost from the record; the lease hands the delivery back, so it is sent again.
      log.warn('cannot record callback attempt', { ...fields, error });
    }
  }

  /** A listener missing an attempt is no reason to hold the callback back: a failure is logged, the attempt goes out. */
  private async recordInStream(delivery: ClaimedDelivery, headers: Record<string, string>): Promise<void> {
    const { stream, log } = this.options;
    if (!stream) return;
    try {
      const { merchantId, webhookId, internalReference, eventName, body } = delivery;
      await stream.record({ merchantId, webhookId, internalReference, eventName, body, headers });
    } catch (error) {
      log.warn('cannot record callback attempt in the stream', { webhook_id: delivery.webhookId, error });
    }
  }

  /** Records an attempt with the others finished meanwhile, one transaction per batch (attempts that finish together share it). */
  private record(claimed: ClaimedDelivery, outcome: AttemptOutcome): Promise<DeliveryState | undefined> {
    const recorded = new Promise<Recorded>((done) => this.unrecorded.push({ claimed, outcome, done }));
    this.startRecording();
    return recorded.then((state) => {
      if (state instanceof Error) throw state;
      return state;
    });
  }

  private startRecording(): void {
    if (this.recording) return;
    // One that arrived after the last batch was taken, but before this one ended, starts the next.
    this.recording = this.recordAll().finally(() => {
      this.recording = undefined;
      if (this.unrecorded.length > 0) this.startRecording();
    });
  }

  private async recordAll(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    while (this.unrecorded.length > 0) {
      const batch = this.unrecorded;
      this.unrecorded = [];
      try {
        const states = await this.options.store.recordAttempts(batch);
        batch.forEach((entry, i) => entry.done(states[i]));
      } catch (error) {
        for (const entry of batch) entry.done(error instanceof Error ? error : new Error(String(error)));
      }
    }
  }
}

const NOT_SENT = { outcome: 'not_sent' };

type Recorded = DeliveryState | undefined | Error;
const OUTCOMES: Record<string, { outcome: string }> = {
  delivered: { outcome: 'delivered' },
  pending: { outcome: 'retrying' },
  abandoned: { outcome: 'abandoned' },
  superseded: { outcome: 'superseded' },
};

function noKey(): AttemptOutcome {
  return { startedAt: new Date(), durationMs: 0, responseExcerpt: '', error: 'merchant has no signing key' };
}
