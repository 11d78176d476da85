import type { DeliveryState } from '@paygate/contracts';
import { SqlJobQueue, type ClaimedJob } from '@paygate/jobs';
import { migrate, type SqlClient, type SqlDatabase } from '@paygate/sql';
import { WEBHOOKS_MIGRATIONS } from '../migrations';
import type { AttemptOutcome } from './callback-sender';
import { jittered, type DeliveryConfig } from './delivery-config';

export type { DeliveryState };

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
}

export interface ClaimedDelivery {
  webhookId: string;
  merchantId: string;
  internalReference: string;
  sequence: number;
  eventName: string;
  targetUrl: string;
  body: string;
  /** Recording an attempt changes the delivery only while this claim still holds it (the job's lease). */
  claimToken: string;
}

export interface AttemptRecord {
  /** Numbered across the delivery's whole life, resends included. */
  attempt: number;
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  responseExcerpt: string;
  error: string | null;
}

export interface DeliveryRecord {
  webhookId: string;
  merchantId: string;
  internalReference: string;
  sequence: number;
  eventName: string;
  targetUrl: string | null;
  targetHost: string | null;
  body: string;
  state: DeliveryState;
  /** Attempts since the delivery was enqueued or last resent: the position in the retry schedule. */
  attemptsInRound: number;
  nextAttemptAt: Date;
  leaseUntil: Date | null;
  createdAt: Date;
  deliveredAt: Date | null;
  lastStatus: number | null;
  lastError: string | null;
  /** Every attempt ever made, oldest first. */
  attempts: AttemptRecord[];
}

export interface DeliveryQuery {
  state?: DeliveryState;
  merchantId?: string;
  internalReference?: string;
  limit: number;
}

export interface DeliveryStoreConfig extends Pick<DeliveryConfig, 'timeoutMs' | 'retrySchedule' | 'perHostConcurrency'> {
  /**
   * A claim lasts timeoutMs plus this (default 5 s) for the key lookup and the recording; after
   * that another worker may take the delivery over.
   */
  leaseMarginMs?: number;
  /** False where nobody listens (a read-model rebuild): callbacks without a URL are not copied into the callback stream. Default true. */
  streamUnsent?: boolean;
}

const DEFAULT_LEASE_MARGIN_MS = 5_000;
/** A claimed delivery that may not be sent yet (an earlier one or its cause unsettled) is looked at again this much later, or at once when that one settles. */
const NOT_READY_MS = 1_000;
/** Serialises claims (and the wake after a callback settles) across dispatchers: the per-host count each claim sees is the true one. */
const CLAIM_LOCK = `select pg_advisory_xact_lock(hashtext('paygate-webhook-claim:' || current_schema()))`;
/** The job queue of callbacks: one job per delivery waiting to be sent, key = webhook id, lane = target host. */
export const CALLBACK_QUEUE = new SqlJobQueue<null>('callbacks');

interface DeliveryRow {
  webhook_id: string;
  merchant_id: string;
  internal_reference: string;
  sequence: number;
  event_name: string;
  target_url: string | null;
  target_host: string | null;
  body: string;
  state: DeliveryState;
  attempts: number;
  next_attempt_at: Date;
  lease_until: Date | null;
  created_at: Date;
  delivered_at: Date | null;
  last_status: number | null;
  last_error: string | null;
}

interface AttemptRow {
  webhook_id: string;
  attempt: number;
  started_at: Date;
  duration_ms: number;
  status_code: number | null;
  response_excerpt: string;
  error: string | null;
}

const DELIVERY_COLUMNS = `webhook_id, merchant_id, internal_reference, sequence, event_name, target_url, target_host, body,
  state, attempts, next_attempt_at, lease_until, created_at, delivered_at, last_status, last_error`;

/**
 * The callbacks in STORE_URL: `webhook_deliveries` records each callback and its attempts, and
 * the job queue (libs/jobs, queue `callbacks`) holds a job per delivery waiting to be sent, in a
 * lane per target host. A claim leases jobs: a worker that dies mid-attempt leaves them to be
 * taken over once the lease runs out, so a callback is sent at least once, never lost; a claim
 * caps the attempts in flight per host across every dispatcher process.
 *
 * Order is decided in one place, when a job is claimed, against committed rows (`READY`): a
 * transaction's callback to one URL is sent only once every earlier one is settled, and one
 * caused by another stream only once its cause is queued. A job that is not ready goes back to
 * wait. So whatever makes a job due (enqueue, resend, a retry, the adoption sweep, a wake-up
 * after a settlement, or two of them racing a connection cut) can make it due early, never sent
 * early.
 */
export interface QueueStats {
  pending: number;
  delivering: number;
  /** Age of the oldest delivery due now and not yet claimed; 0 when none is. */
  oldestDueSeconds: number;
}

export class DeliveryStore {
  private readonly leaseMs: number;

  private constructor(
    private readonly sql: SqlDatabase,
    private readonly config: DeliveryStoreConfig,
  ) {
    this.leaseMs = config.timeoutMs + (config.leaseMarginMs ?? DEFAULT_LEASE_MARGIN_MS);
  }

  static async open(sql: SqlDatabase, config: DeliveryStoreConfig): Promise<DeliveryStore> {
    await migrate(sql, WEBHOOKS_MIGRATIONS);
    await SqlJobQueue.migrate(sql);
    return new DeliveryStore(sql, config);
  }

  /** The queue as an operator sees it: deliveries waiting or in flight, and how long the oldest due one has waited. */
  async queueStats(): Promise<QueueStats> {
    const [row] = await this.sql.query<{ pending: number; delivering: number; oldest_due_seconds: number | null }>(
      `select count(*) filter (where state = 'pending')::int as pending,
              count(*) filter (where state = 'delivering')::int as delivering,
              extract(epoch from now() - min(next_attempt_at) filter (where state = 'pending' and next_attempt_at <= now()))::float8 as oldest_due_seconds
       from webhook_deliveries where state in ('pending', 'delivering')`,
    );
    return { pending: row.pending, delivering: row.delivering, oldestDueSeconds: Math.max(0, row.oldest_due_seconds ?? 0) };
  }

  /**
   * Adds deliveries, ignoring any whose webhookId exists (an event the broker redelivers creates
   * nothing new), each with its job. Pass `client` to enqueue in the caller's transaction.
   */
  async enqueue(deliveries: NewDelivery[], client: SqlClient = this.sql): Promise<void> {
    if (deliveries.length === 0) return;
    const targets = deliveries.map((delivery) => sendableTarget(delivery.targetUrl));
    // A callback with no URL to go to is also recorded in the callback stream (unsigned: CallbackStream
    // signs it when read), only when newly queued, so `paygate listen` shows it once.
    const added = await client.query<{
      webhook_id: string;
      internal_reference: string;
      target_host: string | null;
      next_attempt_at: Date;
      state: DeliveryState;
    }>(
      `with inserted as (insert into webhook_deliveries
         (webhook_id, merchant_id, internal_reference, sequence, event_name, awaits, target_url, target_host, body, state, last_error, next_attempt_at)
       select d.webhook_id, d.merchant_id, d.internal_reference, d.sequence, d.event_name, string_to_array(d.awaits, ','),
              d.target_url, d.target_host, d.body,
              case when d.target_host is null then 'undeliverable' else 'pending' end, d.last_error,
              now() + d.delay_ms * interval '1 millisecond'
       from unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::bigint[], $11::text[])
         as d (webhook_id, merchant_id, internal_reference, sequence, event_name, target_url, target_host, body, last_error, delay_ms, awaits)
       on conflict (webhook_id) do nothing
       returning webhook_id, merchant_id, internal_reference, event_name, body, target_host, next_attempt_at, state),
       streamed as (insert into webhook_stream (merchant_id, webhook_id, internal_reference, event_name, body, headers, sent)
         select merchant_id, webhook_id, internal_reference, event_name, body, null, false from inserted where state = 'undeliverable' and $12::boolean)
       select webhook_id, internal_reference, target_host, next_attempt_at, state from inserted`,
      [
        deliveries.map((d) => d.webhookId),
        deliveries.map((d) => d.merchantId),
        deliveries.map((d) => d.internalReference),
        deliveries.map((d) => d.sequence),
        deliveries.map((d) => d.eventName),
        deliveries.map((d) => d.targetUrl),
        targets.map((target) => target.host),
        deliveries.map((d) => d.body),
        targets.map((target) => target.problem),
        deliveries.map(() => jittered(this.config.retrySchedule[0])),
        // One array per row cannot pass through unnest (it flattens), so each travels as one text.
        deliveries.map((d) => (d.awaits ?? []).join(',')),
        this.config.streamUnsent ?? true,
      ],
    );
    const pending = added.filter((row) => row.state === 'pending');
    await CALLBACK_QUEUE.schedule(
      client,
      pending.map((row) => ({ key: row.webhook_id, lane: row.target_host ?? '', runAt: new Date(row.next_attempt_at) })),
    );
    // A callback that waited for one of these to be queued may be ready now.
    await this.wake(client, [...new Set(added.map((row) => row.internal_reference))]);
  }

  /**
   * Claims up to `limit` due deliveries that may be sent now. On PostgreSQL claimers are
   * serialised by a transaction-scoped advisory lock, so the per-host count each sees is the true
   * one. Claimed jobs whose delivery may not be sent yet go back to wait; those of a delivery
   * already settled are dropped.
   */
  async claimDue(limit: number): Promise<ClaimedDelivery[]> {
    if (limit <= 0) return [];
    return this.sql.transaction(async (tx) => {
      await tx.query(CLAIM_LOCK);
      const jobs = await CALLBACK_QUEUE.claim(tx, { limit, leaseMs: this.leaseMs, laneCap: this.config.perHostConcurrency });
      if (jobs.length === 0) return [];
      const rows = await tx.query<DeliveryRow & { ready: boolean }>(
        `select d.*, ${READY} as ready from webhook_deliveries d where d.webhook_id = any($1::text[])`,
        [jobs.map((job) => job.key)],
      );
      const byId = new Map(rows.map((row) => [row.webhook_id, row]));
      const ready: ClaimedJob<null>[] = [];
      const waiting: { job: ClaimedJob<null>; at: Date }[] = [];
      const gone: ClaimedJob<null>[] = [];
      for (const job of jobs) {
        const row = byId.get(job.key);
        if (!row || (row.state !== 'pending' && row.state !== 'delivering')) gone.push(job);
        else if (row.ready) ready.push(job);
        else waiting.push({ job, at: new Date(Math.max(Date.now() + NOT_READY_MS, new Date(row.next_attempt_at).getTime())) });
      }
      await CALLBACK_QUEUE.complete(tx, gone);
      await CALLBACK_QUEUE.retryLater(tx, waiting);
      if (ready.length === 0) return [];
      await tx.query(
        `update webhook_deliveries d set state = 'delivering', claim_token = u.token, lease_until = u.token::timestamptz
         from unnest($1::text[], $2::text[]) as u(webhook_id, token) where d.webhook_id = u.webhook_id`,
        [ready.map((job) => job.key), ready.map((job) => job.leaseUntil.toISOString())],
      );
      return ready.map((job) => {
        const row = byId.get(job.key)!;
        return {
          webhookId: row.webhook_id,
          merchantId: row.merchant_id,
          internalReference: row.internal_reference,
          sequence: row.sequence,
          eventName: row.event_name,
          targetUrl: row.target_url as string,
          body: row.body,
          claimToken: job.leaseUntil.toISOString(),
        };
      });
    });
  }

  /** One attempt; see recordAttempts. */
  async recordAttempt(claimed: ClaimedDelivery, outcome: AttemptOutcome): Promise<DeliveryState | undefined> {
    return (await this.recordAttempts([{ claimed, outcome }]))[0];
  }

  /**
   * Records attempts, all in one transaction, and decides what follows each: 2xx delivered, 410
   * abandoned (the receiver says the endpoint is gone), otherwise the next step of the schedule
   * or, after the last, abandoned. An attempt is always recorded (it happened); its delivery
   * changes only while the claim still holds the job's lease. Returns each new state, or
   * undefined for a stale claim.
   */
  async recordAttempts(batch: readonly { claimed: ClaimedDelivery; outcome: AttemptOutcome }[]): Promise<(DeliveryState | undefined)[]> {
    if (batch.length === 0) return [];
    const ids = batch.map(({ claimed }) => claimed.webhookId);
    let settledRefs: string[] = [];
    const states = await this.sql.transaction(async (tx) => {
      // The row locks also serialise attempt numbering with a stale claimer recording at the same time.
      const current = await tx.query<{ webhook_id: string; attempts: number; claim_token: string | null; internal_reference: string }>(
        'select webhook_id, attempts, claim_token, internal_reference from webhook_deliveries where webhook_id = any($1::text[]) order by webhook_id for update',
        [ids],
      );
      const byId = new Map(current.map((row) => [row.webhook_id, row]));
      await tx.query(
        `insert into webhook_attempts (webhook_id, attempt, started_at, duration_ms, status_code, response_excerpt, error)
         select a.webhook_id, coalesce((select max(attempt) from webhook_attempts w where w.webhook_id = a.webhook_id), 0)
                  + row_number() over (partition by a.webhook_id order by a.ord),
                a.started_at, a.duration_ms, a.status_code, a.response_excerpt, a.error
         from unnest($1::text[], $2::timestamptz[], $3::int[], $4::int[], $5::text[], $6::text[]) with ordinality
           as a (webhook_id, started_at, duration_ms, status_code, response_excerpt, error, ord)`,
        [
          ids,
          batch.map(({ outcome }) => outcome.startedAt.toISOString()),
          batch.map(({ outcome }) => outcome.durationMs),
          batch.map(({ outcome }) => outcome.statusCode ?? null),
          batch.map(({ outcome }) => outcome.responseExcerpt),
          batch.map(({ outcome }) => outcome.error ?? null),
        ],
      );
      const states: (DeliveryState | undefined)[] = [];
      const updates: { id: string; state: DeliveryState; attempts: number; delayMs: number; status: number | null; error: string | null }[] = [];
      for (const { claimed, outcome } of batch) {
        const row = byId.get(claimed.webhookId);
        if (!row || row.claim_token !== claimed.claimToken || updates.some((update) => update.id === claimed.webhookId)) {
          states.push(undefined);
          continue;
        }
        const attempts = row.attempts + 1;
        const status = outcome.statusCode;
        let state: DeliveryState;
        let delayMs = 0;
        if (status !== undefined && status >= 200 && status < 300) state = 'delivered';
        else if (status === 410 || attempts >= this.config.retrySchedule.length) state = 'abandoned';
        else {
          state = 'pending';
          delayMs = Math.max(jittered(this.config.retrySchedule[attempts]), outcome.retryAfterMs ?? 0);
        }
        updates.push({ id: claimed.webhookId, state, attempts, delayMs, status: status ?? null, error: outcome.error ?? null });
        states.push(state);
      }
      if (updates.length === 0) return states;
      const next = await tx.query<{ webhook_id: string; next_attempt_at: Date }>(
        `update webhook_deliveries d
         set state = u.state, attempts = u.attempts, next_attempt_at = now() + u.delay_ms * interval '1 millisecond',
             delivered_at = case when u.state = 'delivered' then now() else d.delivered_at end,
             last_status = u.status, last_error = u.error, claim_token = null, lease_until = null
         from unnest($1::text[], $2::text[], $3::int[], $4::bigint[], $5::int[], $6::text[]) as u(webhook_id, state, attempts, delay_ms, status, error)
         where d.webhook_id = u.webhook_id
         returning d.webhook_id, d.next_attempt_at`,
        [
          updates.map((u) => u.id),
          updates.map((u) => u.state),
          updates.map((u) => u.attempts),
          updates.map((u) => u.delayMs),
          updates.map((u) => u.status),
          updates.map((u) => u.error),
        ],
      );
      const nextAt = new Map(next.map((row) => [row.webhook_id, new Date(row.next_attempt_at)]));
      const jobOf = (id: string): ClaimedJob<null> => {
        const claimed = batch.find((entry) => entry.claimed.webhookId === id)!.claimed;
        return { key: id, lane: '', payload: null, dueAt: new Date(0), attempts: 0, leaseUntil: new Date(claimed.claimToken) };
      };
      await CALLBACK_QUEUE.complete(
        tx,
        updates.filter((u) => u.state !== 'pending').map((u) => jobOf(u.id)),
      );
      await CALLBACK_QUEUE.retryLater(
        tx,
        updates.filter((u) => u.state === 'pending').map((u) => ({ job: jobOf(u.id), at: nextAt.get(u.id) })),
      );
      settledRefs = [...new Set(updates.filter((u) => u.state !== 'pending').map((u) => byId.get(u.id)!.internal_reference))];
      return states;
    });
    await this.wakeAfterSettling(settledRefs);
    return states;
  }

  /**
   * The next callbacks of transactions whose callback settled may be sent now. Woken once the
   * settling has committed and under the claim's lock: a claim that read the earlier callback
   * still in flight has put the next one back by then, so it is brought forward here rather than
   * waiting NOT_READY_MS. Best effort: a callback left waiting is claimed again after that anyway.
   */
  private async wakeAfterSettling(internalReferences: string[]): Promise<void> {
    if (internalReferences.length === 0) return;
    await this.sql
      .transaction(async (tx) => {
        await tx.query(CLAIM_LOCK);
        await this.wake(tx, internalReferences);
      })
      .catch(() => undefined);
  }

  /** Brings the waiting jobs of these transactions' pending deliveries back to their own time: what they waited for may have happened. */
  private async wake(client: SqlClient, internalReferences: string[]): Promise<void> {
    if (internalReferences.length === 0) return;
    const rows = await client.query<{ webhook_id: string; next_attempt_at: Date }>(
      `select webhook_id, next_attempt_at from webhook_deliveries where internal_reference = any($1::text[]) and state = 'pending'`,
      [internalReferences],
    );
    await CALLBACK_QUEUE.advance(
      client,
      rows.map((row) => ({ key: row.webhook_id, at: new Date(row.next_attempt_at) })),
    );
  }

  /**
   * Gives every pending or in-flight delivery without a job one (deliveries an older release
   * queued before the job queue, or any a cut left without one). Safe whatever it schedules: the
   * claim decides what may be sent.
   */
  async adoptUnqueued(): Promise<void> {
    // Two reads, each on its partial index (pending, in flight), so the history of delivered callbacks is never scanned.
    const rows = await this.sql.query<{ webhook_id: string; target_host: string; next_attempt_at: Date }>(
      `select webhook_id, target_host, next_attempt_at from webhook_deliveries where state = 'pending'
       union all
       select webhook_id, target_host, next_attempt_at from webhook_deliveries where state = 'delivering'`,
    );
    await CALLBACK_QUEUE.schedule(
      this.sql,
      rows.map((row) => ({ key: row.webhook_id, lane: row.target_host, runAt: new Date(row.next_attempt_at) })),
    );
  }

  /**
   * Sends a transaction's callbacks to the merchant again, in order, with the full schedule:
   * delivered, abandoned, waiting and in-flight ones become due now, keeping their webhook ids
   * (an attempt in flight then records only itself: its claim is no longer the delivery's).
   * Returns how many.
   */
  async resend(merchantId: string, internalReference: string): Promise<number> {
    return this.sql.transaction(async (tx) => {
      const rows = await tx.query<{ webhook_id: string; target_host: string }>(
        `update webhook_deliveries set state = 'pending', attempts = 0, next_attempt_at = now(), claim_token = null, lease_until = null
         where merchant_id = $1 and internal_reference = $2 and state in ('delivered', 'abandoned', 'pending', 'delivering')
         returning webhook_id, target_host`,
        [merchantId, internalReference],
      );
      await this.requeue(tx, rows);
      return rows.length;
    });
  }

  /** Abandoned deliveries (all, or those of `webhookIds`) start the schedule again now. Returns how many. */
  async retryAbandoned(webhookIds?: string[]): Promise<number> {
    return this.sql.transaction(async (tx) => {
      const rows = await tx.query<{ webhook_id: string; target_host: string }>(
        `update webhook_deliveries set state = 'pending', attempts = 0, next_attempt_at = now()
         where state = 'abandoned' and ($1::text[] is null or webhook_id = any($1::text[]))
         returning webhook_id, target_host`,
        [webhookIds ?? null],
      );
      await this.requeue(tx, rows);
      return rows.length;
    });
  }

  /** Due now, each with a job of its own: one still held by an attempt in flight is taken from it (that attempt's claim no longer counts). */
  private async requeue(client: SqlClient, rows: { webhook_id: string; target_host: string }[]): Promise<void> {
    await CALLBACK_QUEUE.schedule(
      client,
      rows.map((row) => ({ key: row.webhook_id, lane: row.target_host, runAt: new Date() })),
      { replace: true },
    );
  }

  /** Deliveries oldest first, each with its attempts. */
  async list(query: DeliveryQuery): Promise<DeliveryRecord[]> {
    const rows = await this.sql.query<DeliveryRow>(
      `select ${DELIVERY_COLUMNS} from webhook_deliveries
       where ($1::text is null or state = $1::text) and ($2::text is null or merchant_id = $2::text)
         and ($3::text is null or internal_reference = $3::text)
       order by created_at, internal_reference, sequence, webhook_id
       limit $4::int`,
      [query.state ?? null, query.merchantId ?? null, query.internalReference ?? null, query.limit],
    );
    const attempts = rows.length
      ? await this.sql.query<AttemptRow>(
          `select webhook_id, attempt, started_at, duration_ms, status_code, response_excerpt, error
           from webhook_attempts where webhook_id = any($1::text[]) order by webhook_id, attempt`,
          [rows.map((row) => row.webhook_id)],
        )
      : [];
    const byDelivery = new Map<string, AttemptRecord[]>();
    for (const row of attempts) {
      const entries = byDelivery.get(row.webhook_id) ?? [];
      entries.push({
        attempt: row.attempt,
        startedAt: new Date(row.started_at),
        durationMs: row.duration_ms,
        statusCode: row.status_code,
        responseExcerpt: row.response_excerpt,
        error: row.error,
      });
      byDelivery.set(row.webhook_id, entries);
    }
    return rows.map((row) => ({
      webhookId: row.webhook_id,
      merchantId: row.merchant_id,
      internalReference: row.internal_reference,
      sequence: row.sequence,
      eventName: row.event_name,
      targetUrl: row.target_url,
      targetHost: row.target_host,
      body: row.body,
      state: row.state,
      attemptsInRound: row.attempts,
      nextAttemptAt: new Date(row.next_attempt_at),
      leaseUntil: row.lease_until && new Date(row.lease_until),
      createdAt: new Date(row.created_at),
      deliveredAt: row.delivered_at && new Date(row.delivered_at),
      lastStatus: row.last_status,
      lastError: row.last_error,
      attempts: byDelivery.get(row.webhook_id) ?? [],
    }));
  }
}

/**
 * Whether delivery `d` may be sent now: a transaction's callback to one URL goes only once every
 * earlier one is settled, and one caused by another stream only once its cause is queued, so the
 * rule before can see it.
 */
const READY = `(d.next_attempt_at <= now()
  and not exists (
    select 1 from webhook_deliveries earlier
    where earlier.internal_reference = d.internal_reference and earlier.target_url = d.target_url
      and earlier.sequence < d.sequence and earlier.state in ('pending', 'delivering'))
  and (cardinality(d.awaits) = 0 or exists (
    select 1 from webhook_deliveries cause
    where cause.internal_reference = d.internal_reference and cause.event_name = any(d.awaits))))`;

/** The host deliveries are grouped by for isolation, or why the URL can never be sent to. */
function sendableTarget(targetUrl: string | null): { host: string | null; problem: string | null } {
  if (targetUrl === null) return { host: null, problem: 'no callback URL' };
  let url: URL;
  try {
    url = new URL(targetUrl);
  } catch {
    return { host: null, problem: 'callback URL is not a valid URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { host: null, problem: 'callback URL is not http: or https:' };
  return { host: url.hostname, problem: null };
}
