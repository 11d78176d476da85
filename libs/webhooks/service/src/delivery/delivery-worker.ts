import { JobWorker, type RunResult } from '@paygate/jobs';
import { joinFlow, type Logger } from '@paygate/logging';
import { LATENCY_BUCKETS, type Counter, type Histogram, type Metrics } from '@paygate/metrics';
import type { SqlDatabase } from '@paygate/sql';
import { inSpan } from '@paygate/tracing';
import type { AttemptOutcome, CallbackSender } from './callback-sender';
import type { CallbackStream } from './callback-stream';
import type { DeliveryConfig } from './delivery-config';
import type { AttemptsRecorded, AttemptVerdict, ClaimedDelivery, DeliveryQueue } from './delivery-queue';

export interface DeliveryWorkerOptions {
  queue: DeliveryQueue;
  sql: SqlDatabase;
  sender: CallbackSender;
  /** The merchant's signing key, or null when the merchant no longer has one. */
  keys: (merchantId: string) => Promise<string | null>;
  /** tickMs: how often to look unprompted; maxInFlight: attempts this worker runs at once. */
  config: Pick<DeliveryConfig, 'tickMs' | 'maxInFlight'>;
  log: Logger;
  metrics: Metrics;
  /**
   * Where each attempt's signed body and headers are recorded for `paygate listen`; none in specs that do not need it.
   */
  stream?: CallbackStream;
}

/** A claimed delivery with the signing key its merchant had when it was claimed. */
type Signable = ClaimedDelivery & { signingKey: Promise<string | null> };

/**
 * Sends due callbacks on the job worker (libs/jobs): every tick, or at once on notify(), it
 * claims as many deliveries as it has free slots and sends each on its own, so a slow receiver
 * holds one slot, never the loop; attempts that finish together are recorded in one
 * transaction. Any number of workers may share the queue; claims keep them apart. An attempt
 * logs its callback's flow and continues the trace of the event that queued it.
 */
export class DeliveryWorker {
  private readonly worker: JobWorker<Signable, AttemptVerdict, AttemptsRecorded>;
  private readonly attempts: Counter<'outcome'>;
  private readonly durations: Histogram<'outcome'>;

  constructor(private readonly options: DeliveryWorkerOptions) {
    const { queue, sql, keys, config, log, metrics } = options;
    this.attempts = metrics.counter({
      name: 'paygate_callback_attempts_total',
      help: 'Callback attempts by outcome: delivered, retrying (pending again), abandoned (410 or schedule spent), superseded (claim expired meanwhile), not_sent (our failure; retried when the claim expires).',
      labelNames: ['outcome'],
      reportedFromStart: [...Object.values(OUTCOMES), NOT_SENT],
    });
    this.durations = metrics.histogram({
      name: 'paygate_callback_attempt_duration_seconds',
      help: "Time from sending a callback to the merchant's answer (or the failure), by the attempt's outcome as paygate_callback_attempts_total counts it.",
      labelNames: ['outcome'],
      buckets: LATENCY_BUCKETS,
    });
    this.worker = new JobWorker({
      queue: {
        name: queue.name,
        claim: async (db, claimOptions) => withSigningKeys(await queue.claim(db, claimOptions), keys),
        settle: (tx, results) => queue.settle(tx, results),
        nextDueAt: (db) => queue.nextDueAt(db),
      },
      sql,
      tickMs: config.tickMs,
      maxInFlight: config.maxInFlight,
      log,
      run: (delivery) => this.send(delivery),
      settled: async (recorded, results) => {
        this.report(recorded, results);
        await queue.wakeAfterSettling(recorded.settledReferences);
      },
    });
  }

  start(): void {
    this.worker.start();
  }

  /** Looks for due deliveries now (call after enqueue), rather than on the next tick. */
  notify(): void {
    this.worker.wake();
  }

  /** Claims nothing more and waits for the attempts in flight to be sent and recorded. */
  stop(): Promise<void> {
    return this.worker.stop();
  }

  private send(delivery: Signable): Promise<AttemptVerdict> {
    const callback = delivery.payload;
    if (callback.correlationId) joinFlow(callback.correlationId);
    return inSpan(
      `callback ${callback.eventName}`,
      {
        parent: callback.traceparent,
        attributes: {
          'paygate.webhook_id': callback.webhookId,
          'paygate.internal_reference': callback.internalReference,
        },
      },
      () => this.attempt(delivery),
    );
  }

  private async attempt(delivery: Signable): Promise<AttemptVerdict> {
    const callback = delivery.payload;
    try {
      const signingKey = await delivery.signingKey;
      if (signingKey === null) return noKey();
      return await this.options.sender.send(callback, signingKey, (headers) => this.recordInStream(delivery, headers));
    } catch (error) {
      // Our failure, not the receiver's: no attempt is charged, the lease hands the delivery back.
      this.attempts.inc(NOT_SENT);
      this.options.log.warn('cannot send callback; it will be retried when its claim expires', {
        ...fieldsOf(delivery),
        error,
      });
      return null;
    }
  }

  /**
   * A listener missing an attempt is no reason to hold the callback back: a failure is logged, the attempt goes out.
   */
  private async recordInStream(delivery: ClaimedDelivery, headers: Record<string, string>): Promise<void> {
    const { stream, log } = this.options;
    if (!stream) return;
    try {
      const { merchantId, webhookId, internalReference, eventName, body } = delivery.payload;
      await stream.record({ merchantId, webhookId, internalReference, eventName, body, headers });
    } catch (error) {
      log.warn('cannot record callback attempt in the stream', { webhook_id: delivery.key, error });
    }
  }

  /** Counts and logs each recorded attempt by what it did to its delivery. */
  private report({ states }: AttemptsRecorded, results: readonly RunResult<ClaimedDelivery, AttemptVerdict>[]): void {
    results.forEach(({ job, verdict: outcome }, i) => {
      if (!outcome) return;
      const state = states[i];
      const labels = OUTCOMES[state ?? 'superseded'];
      this.attempts.inc(labels);
      this.durations.observe(labels, outcome.durationMs / 1000);
      const fields = {
        ...fieldsOf(job),
        event: job.payload.eventName,
        status: outcome.statusCode,
        error: outcome.error,
        duration_ms: outcome.durationMs,
        state,
      };
      if (state === 'abandoned') this.options.log.warn('callback abandoned', fields);
      else this.options.log.info('callback attempt', fields);
    });
  }
}

/** One look-up per merchant per claim: its callbacks claimed together are signed with the key it had then. */
function withSigningKeys(claimed: ClaimedDelivery[], keys: (merchantId: string) => Promise<string | null>): Signable[] {
  const byMerchant = new Map<string, Promise<string | null>>();
  return claimed.map((delivery) => {
    const { merchantId } = delivery.payload;
    let signingKey = byMerchant.get(merchantId);
    if (!signingKey) byMerchant.set(merchantId, (signingKey = keys(merchantId)));
    return { ...delivery, signingKey };
  });
}

// The attempt lines are written for a batch, outside any one callback's log context: they name its flow themselves.
const fieldsOf = ({ payload }: ClaimedDelivery) => ({
  webhook_id: payload.webhookId,
  merchant_id: payload.merchantId,
  internal_reference: payload.internalReference,
  correlation_id: payload.correlationId,
});

const NOT_SENT = { outcome: 'not_sent' };

const OUTCOMES: Record<string, { outcome: string }> = {
  delivered: { outcome: 'delivered' },
  pending: { outcome: 'retrying' },
  abandoned: { outcome: 'abandoned' },
  superseded: { outcome: 'superseded' },
};

export const NO_SIGNING_KEY = 'merchant has no signing key';

function noKey(): AttemptOutcome {
  return { startedAt: new Date(), durationMs: 0, responseExcerpt: '', error: NO_SIGNING_KEY };
}
