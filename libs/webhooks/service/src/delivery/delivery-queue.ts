import type { DeliveryState } from '@paygate/contracts';
import { type ClaimedJob, type ClaimOptions, type RunResult, type WorkQueue } from '@paygate/jobs';
import { forUpdate, inTextList, textList, type SqlClient, type SqlDatabase } from '@paygate/sql';
import { migrateWebhooks } from '../migrations';
import type { AttemptOutcome } from './callback-sender';
import { afterAttempt, jittered, sendableTarget, type DeliveryConfig } from './delivery-config';
import { CALLBACK_QUEUE, NOT_READY_MS, wakeAfterSettling, wakeWaiting } from './delivery-order';
import { webhooksDialect } from './webhooks-dialect';

export interface NewDelivery {
  /** The Standard Webhooks id: stable across retries and resends, and the idempotency key of enqueue. */
  webhookId: string;
  merchantId: string;
  internalReference: string;
  /** Order of this callback within its transaction, per target URL (lowest first). */
  sequence: number;
  eventName: string;
  /**
   * Event names of callbacks of the same transaction (any URL) one of which must be in the queue
   * before this one is sent: the callback that caused it, when that comes from another stream
   * and may reach the dispatcher later (see CallbackOrder in libs/webhooks/domain). Default [].
   */
  awaits?: string[];
  /** null: the merchant gave no callback URL; the callback is recorded, never sent. */
  targetUrl: string | null;
  /** The exact JSON text to send. */
  body: string;
  /** The flow (correlation id) of the event that caused the callback; its attempts log it. */
  correlationId?: string;
  /** The span that queued it (W3C traceparent), when tracing is on: its attempts' spans continue that trace. */
  traceparent?: string;
}

/** The callback a claimed delivery sends. */
export interface OutgoingCallback {
  webhookId: string;
  merchantId: string;
  internalReference: string;
  eventName: string;
  targetUrl: string;
  body: string;
  correlationId?: string;
  traceparent?: string;
}

/** A delivery claimed for one attempt: its job's lease is the claim's token, which recording the attempt checks. */
export type ClaimedDelivery = ClaimedJob<OutgoingCallback>;

/** An attempt's outcome, or null when it was never sent (our failure: the lease hands the delivery back). */
export type AttemptVerdict = AttemptOutcome | null;

/** What recording a batch of attempts did: each one's new delivery state (undefined: a stale claim, or not sent). */
export interface AttemptsRecorded {
  states: (DeliveryState | undefined)[];
  /** Transactions a delivery of which settled: their next callbacks may be sent now. */
  settledReferences: string[];
}

export interface DeliveryQueueConfig extends Pick<
  DeliveryConfig,
  'timeoutMs' | 'retrySchedule' | 'perHostConcurrency'
> {
  /**
   * A claim lasts timeoutMs plus this (default 5 s) for the key lookup and the recording; then another worker may take
   * it over.
   */
  leaseMarginMs?: number;
  /**
   * False where nobody listens (a read-model rebuild): callbacks without a URL are not copied into the callback stream.
   * Default true.
   */
  streamUnsent?: boolean;
}

const DEFAULT_LEASE_MARGIN_MS = 5_000;

type ClaimRow = {
  webhook_id: string;
  merchant_id: string;
  internal_reference: string;
  event_name: string;
  target_url: string;
  body: string;
  correlation_id: string | null;
  traceparent: string | null;
};

/**
 * The queue of callback deliveries in STORE_URL: `webhook_deliveries` holds each callback's
 * delivery, and the job queue (libs/jobs, queue `callbacks`) a job per delivery waiting to be
 * sent, in a lane per target host. A claim leases jobs: a worker that dies mid-attempt leaves
 * them to be taken over once the lease runs out, so a callback is sent at least once, never lost;
 * a claim caps the attempts in flight per host across every dispatcher process.
 *
 * Order is decided when a job is claimed (delivery-order.ts): a job that is not ready goes back
 * to wait, so whatever makes a job due (enqueue, resend, a retry, a wake-up after a settlement, or
 * two of them racing a connection cut) can make it due early, never sent early.
 */
export class DeliveryQueue implements WorkQueue<ClaimedDelivery, AttemptVerdict, AttemptsRecorded> {
  readonly name = CALLBACK_QUEUE.name;
  private readonly leaseMs: number;

  private constructor(
    private readonly sql: SqlDatabase,
    private readonly config: DeliveryQueueConfig,
  ) {
    this.leaseMs = config.timeoutMs + (config.leaseMarginMs ?? DEFAULT_LEASE_MARGIN_MS);
  }

  static async open(sql: SqlDatabase, config: DeliveryQueueConfig): Promise<DeliveryQueue> {
    await migrateWebhooks(sql);
    return new DeliveryQueue(sql, config);
  }

  /**
   * Adds deliveries, ignoring any whose webhookId exists (an event the broker redelivers creates
   * nothing new), each with its job, in one transaction: the caller's `client`, or one of its own.
   */
  async enqueue(deliveries: NewDelivery[], client?: SqlClient): Promise<void> {
    if (deliveries.length === 0) return;
    // A delivery left without its job would never be sent: nothing sweeps for one.
    if (!client) return this.sql.transaction((tx) => this.enqueue(deliveries, tx));
    const targets = deliveries.map((delivery) => sendableTarget(delivery.targetUrl));
    // A callback with no URL to go to is also recorded in the callback stream (unsigned: CallbackStream
    // signs it when read), only when newly queued, so `paygate listen` shows it once.
    const added = await webhooksDialect(client).enqueue(
      client,
      deliveries.map((d, i) => ({
        webhookId: d.webhookId,
        merchantId: d.merchantId,
        internalReference: d.internalReference,
        sequence: d.sequence,
        eventName: d.eventName,
        awaits: d.awaits ?? [],
        targetUrl: d.targetUrl,
        targetHost: targets[i].host,
        body: d.body,
        lastError: targets[i].problem,
        delayMs: jittered(this.config.retrySchedule[0]),
        correlationId: d.correlationId ?? null,
        traceparent: d.traceparent ?? null,
      })),
      this.config.streamUnsent ?? true,
    );
    const pending = added.filter((row) => row.state === 'pending');
    await CALLBACK_QUEUE.schedule(
      client,
      pending.map((row) => ({
        key: row.webhook_id,
        lane: row.target_host ?? '',
        runAt: new Date(row.next_attempt_at),
      })),
    );
    // A callback that waited for one of these to be queued may be ready now.
    await wakeWaiting(client, [...new Set(added.map((row) => row.internal_reference))]);
  }

  /** When the earliest delivery is due to be looked at, a claim running out included. */
  nextDueAt(client: SqlClient): Promise<Date | undefined> {
    return CALLBACK_QUEUE.nextDueAt(client);
  }

  /**
   * Claims up to `limit` due deliveries that may be sent now (lease and per-host cap: the queue's
   * unless given). Claimers are serialised (the dialect's lockClaims), so the per-host count each
   * sees is the true one. Claimed jobs whose delivery may not be sent yet go back to
   * wait; those of a delivery already settled are dropped.
   */
  async claim(
    sql: SqlDatabase,
    { limit, leaseMs = this.leaseMs, laneCap = this.config.perHostConcurrency }: ClaimOptions,
  ): Promise<ClaimedDelivery[]> {
    if (limit <= 0) return [];
    return sql.transaction(async (tx) => {
      const dialect = webhooksDialect(tx);
      await dialect.lockClaims(tx);
      const jobs = await CALLBACK_QUEUE.claim(tx, { limit, leaseMs, laneCap });
      if (jobs.length === 0) return [];
      const rows = await tx.query<
        ClaimRow & { state: DeliveryState; next_attempt_at: Date | string; ready: boolean | number }
      >(`select d.*, ${dialect.ready} as ready from webhook_deliveries d where d.webhook_id${inTextList(tx, '$1')}`, [
        textList(
          tx,
          jobs.map((job) => job.key),
        ),
      ]);
      const byId = new Map(rows.map((row) => [row.webhook_id, row]));
      const ready: ClaimedJob<unknown>[] = [];
      const waiting: { job: ClaimedJob<unknown>; at: Date }[] = [];
      const gone: ClaimedJob<unknown>[] = [];
      for (const job of jobs) {
        const row = byId.get(job.key);
        if (!row || (row.state !== 'pending' && row.state !== 'delivering')) gone.push(job);
        else if (row.ready) ready.push(job);
        else
          waiting.push({
            job,
            at: new Date(Math.max(Date.now() + NOT_READY_MS, new Date(row.next_attempt_at).getTime())),
          });
      }
      await CALLBACK_QUEUE.complete(tx, gone);
      await CALLBACK_QUEUE.retryLater(tx, waiting);
      if (ready.length === 0) return [];
      await dialect.markDelivering(
        tx,
        ready.map((job) => ({ webhookId: job.key, token: job.leaseUntil.toISOString() })),
      );
      return ready.map((job) => ({ ...job, payload: callbackOf(byId.get(job.key)!) }));
    });
  }

  /**
   * Records a batch of attempts in `tx` and decides what follows each (afterAttempt). An attempt
   * is always recorded (it happened); its delivery changes only while the claim still holds the
   * job's lease. One never sent records nothing: its lease hands the delivery back.
   */
  async settle(
    tx: SqlClient,
    results: readonly RunResult<ClaimedDelivery, AttemptVerdict>[],
  ): Promise<AttemptsRecorded> {
    const sent = results.flatMap(({ job, verdict }) => (verdict ? [{ job, outcome: verdict }] : []));
    if (sent.length === 0) return { states: results.map(() => undefined), settledReferences: [] };
    const ids = sent.map(({ job }) => job.key);
    // The row locks also serialise attempt numbering with a stale claimer recording at the same time.
    const current = await tx.query<{
      webhook_id: string;
      attempts: number;
      claim_token: string | null;
      internal_reference: string;
    }>(
      `select webhook_id, attempts, claim_token, internal_reference from webhook_deliveries
       where webhook_id${inTextList(tx, '$1')} order by webhook_id${forUpdate(tx)}`,
      [textList(tx, ids)],
    );
    const byId = new Map(current.map((row) => [row.webhook_id, row]));
    const dialect = webhooksDialect(tx);
    await dialect.recordAttempts(
      tx,
      sent.map(({ job, outcome }) => ({
        webhookId: job.key,
        startedAt: outcome.startedAt,
        durationMs: outcome.durationMs,
        statusCode: outcome.statusCode ?? null,
        responseExcerpt: outcome.responseExcerpt,
        error: outcome.error ?? null,
      })),
    );
    const updates = new Map<
      string,
      {
        job: ClaimedDelivery;
        state: DeliveryState;
        attempts: number;
        delayMs: number;
        status: number | null;
        error: string | null;
      }
    >();
    for (const { job, outcome } of sent) {
      const row = byId.get(job.key);
      if (!row || row.claim_token !== job.leaseUntil.toISOString() || updates.has(job.key)) continue;
      const attempts = row.attempts + 1;
      const { state, delayMs } = afterAttempt(outcome, attempts, this.config.retrySchedule);
      updates.set(job.key, {
        job,
        state,
        attempts,
        delayMs,
        status: outcome.statusCode ?? null,
        error: outcome.error ?? null,
      });
    }
    const states = results.map(({ job, verdict }) =>
      verdict && updates.get(job.key)?.job === job ? updates.get(job.key)!.state : undefined,
    );
    if (updates.size === 0) return { states, settledReferences: [] };
    const changed = [...updates.values()];
    const next = await dialect.applyOutcomes(
      tx,
      changed.map((u) => ({
        webhookId: u.job.key,
        state: u.state,
        attempts: u.attempts,
        delayMs: u.delayMs,
        status: u.status,
        error: u.error,
      })),
    );
    const nextAt = new Map(next.map((row) => [row.webhook_id, new Date(row.next_attempt_at)]));
    const settled = changed.filter((u) => u.state !== 'pending');
    await CALLBACK_QUEUE.complete(
      tx,
      settled.map((u) => u.job),
    );
    await CALLBACK_QUEUE.retryLater(
      tx,
      changed.filter((u) => u.state === 'pending').map((u) => ({ job: u.job, at: nextAt.get(u.job.key) })),
    );
    return { states, settledReferences: [...new Set(settled.map((u) => byId.get(u.job.key)!.internal_reference))] };
  }

  /** Once a settlement has committed: the next callbacks of its transactions may be sent now. */
  wakeAfterSettling(internalReferences: string[]): Promise<void> {
    return wakeAfterSettling(this.sql, internalReferences);
  }
}

function callbackOf(row: ClaimRow): OutgoingCallback {
  return {
    webhookId: row.webhook_id,
    merchantId: row.merchant_id,
    internalReference: row.internal_reference,
    eventName: row.event_name,
    targetUrl: row.target_url,
    body: row.body,
    correlationId: row.correlation_id ?? undefined,
    traceparent: row.traceparent ?? undefined,
  };
}
