import { randomUUID } from 'node:crypto';
import type { DeliveryState } from '@paygate/contracts';
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
  /** Recording an attempt changes the delivery only while this claim still holds it. */
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
 * The durable delivery queue in STORE_URL. Deliveries are claimed with a lease: a worker that dies
 * mid-attempt leaves its claims to be taken over once the lease runs out, so a callback is sent
 * at least once, never lost. Claiming also keeps each transaction's callbacks to one URL in order
 * (a callback caused by another stream's also waits until its cause is queued) and caps the
 * attempts in flight per host across every dispatcher process.
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
   * nothing new). Pass `client` to enqueue in the caller's transaction.
   */
  async enqueue(deliveries: NewDelivery[], client: SqlClient = this.sql): Promise<void> {
    if (deliveries.length === 0) return;
    const targets = deliveries.map((delivery) => sendableTarget(delivery.targetUrl));
    // A callback with no URL to go to is also recorded in the callback stream (unsigned: CallbackStream
    // signs it when read), only when newly queued, so `paygate listen` shows it once.
    await client.query(
      `with inserted as (insert into webhook_deliveries
         (webhook_id, merchant_id, internal_reference, sequence, event_name, awaits, target_url, target_host, body, state, last_error, next_attempt_at)
       select d.webhook_id, d.merchant_id, d.internal_reference, d.sequence, d.event_name, string_to_array(d.awaits, ','),
              d.target_url, d.target_host, d.body,
              case when d.target_host is null then 'undeliverable' else 'pending' end, d.last_error,
              now() + d.delay_ms * interval '1 millisecond'
       from unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::bigint[], $11::text[])
         as d (webhook_id, merchant_id, internal_reference, sequence, event_name, target_url, target_host, body, last_error, delay_ms, awaits)
       on conflict (webhook_id) do nothing
       returning webhook_id, merchant_id, internal_reference, event_name, body, state)
       insert into webhook_stream (merchant_id, webhook_id, internal_reference, event_name, body, headers, sent)
       select merchant_id, webhook_id, internal_reference, event_name, body, null, false from inserted where state = 'undeliverable' and $12::boolean`,
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
  }

  /**
   * Claims up to `limit` due deliveries. Claimers are serialised by a transaction-scoped advisory
   * lock, so two processes never claim the same delivery and the per-host count they both see is
   * the true one.
   */
  async claimDue(limit: number): Promise<ClaimedDelivery[]> {
    if (limit <= 0) return [];
    const claimToken = randomUUID();
    const rows = await this.sql.transaction(async (tx) => {
      await tx.query(`select pg_advisory_xact_lock(hashtext('paygate-webhook-claim:' || current_schema()))`);
      // A claimer that died (or overran its lease) gives its deliveries back.
      await tx.query(
        `update webhook_deliveries set state = 'pending', claim_token = null, lease_until = null
         where state = 'delivering' and lease_until < now()`,
      );
      return tx.query<DeliveryRow>(
        `with in_flight as (
           select target_host, count(*)::int as busy from webhook_deliveries where state = 'delivering' group by target_host
         ), ready as (
           select d.webhook_id, d.target_host, d.next_attempt_at, d.created_at,
                  row_number() over (partition by d.target_host order by d.next_attempt_at, d.created_at, d.sequence) as host_rank
           from webhook_deliveries d
           where d.state = 'pending' and d.next_attempt_at <= now()
             -- order: a callback waits until every earlier one of its transaction to the same URL is settled
             and not exists (
               select 1 from webhook_deliveries earlier
               where earlier.internal_reference = d.internal_reference and earlier.target_url = d.target_url
                 and earlier.sequence < d.sequence and earlier.state in ('pending', 'delivering'))
             -- cause: one from another stream also waits until the callback that caused it is queued, so the rule above can see it
             and (cardinality(d.awaits) = 0 or exists (
               select 1 from webhook_deliveries cause
               where cause.internal_reference = d.internal_reference and cause.event_name = any(d.awaits)))
         ), picked as (
           -- isolation: a host gets only the slots it has free, and every host its first slot before any its second
           select r.webhook_id from ready r left join in_flight f on f.target_host = r.target_host
           where r.host_rank <= $2::int - coalesce(f.busy, 0)
           order by r.host_rank, r.next_attempt_at, r.created_at
           limit $1::int
         )
         update webhook_deliveries d
         set state = 'delivering', claim_token = $3::text, lease_until = now() + $4::bigint * interval '1 millisecond'
         from picked where d.webhook_id = picked.webhook_id and d.state = 'pending'
         returning d.*`,
        [limit, this.config.perHostConcurrency, claimToken, this.leaseMs],
      );
    });
    return rows.map((row) => ({
      webhookId: row.webhook_id,
      merchantId: row.merchant_id,
      internalReference: row.internal_reference,
      sequence: row.sequence,
      eventName: row.event_name,
      targetUrl: row.target_url as string,
      body: row.body,
      claimToken,
    }));
  }

  /**
   * Records an attempt and decides what follows it: 2xx delivered, 410 abandoned (the receiver
   * says the endpoint is gone), otherwise the next step of the schedule or, after the last,
   * abandoned. The attempt is always recorded (it happened); the delivery changes only while the
   * claim is still the current one. Returns the new state, or undefined for a stale claim.
   */
  async recordAttempt(claimed: ClaimedDelivery, outcome: AttemptOutcome): Promise<DeliveryState | undefined> {
    return this.sql.transaction(async (tx) => {
      // The row lock also serialises attempt numbering with a stale claimer recording at the same time.
      const [current] = await tx.query<{ attempts: number; claim_token: string | null }>(
        'select attempts, claim_token from webhook_deliveries where webhook_id = $1 for update',
        [claimed.webhookId],
      );
      await tx.query(
        `insert into webhook_attempts (webhook_id, attempt, started_at, duration_ms, status_code, response_excerpt, error)
         select $1::text, coalesce(max(attempt), 0) + 1, $2::timestamptz, $3::int, $4::int, $5::text, $6::text from webhook_attempts where webhook_id = $1::text`,
        [claimed.webhookId, outcome.startedAt, outcome.durationMs, outcome.statusCode ?? null, outcome.responseExcerpt, outcome.error ?? null],
      );
      if (current?.claim_token !== claimed.claimToken) return undefined;

      const attempts = current.attempts + 1;
      const status = outcome.statusCode;
      let state: DeliveryState;
      let delayMs = 0;
      if (status !== undefined && status >= 200 && status < 300) state = 'delivered';
      else if (status === 410 || attempts >= this.config.retrySchedule.length) state = 'abandoned';
      else {
        state = 'pending';
        delayMs = Math.max(jittered(this.config.retrySchedule[attempts]), outcome.retryAfterMs ?? 0);
      }
      await tx.query(
        `update webhook_deliveries
         set state = $2::text, attempts = $3::int, next_attempt_at = now() + $4::bigint * interval '1 millisecond',
             delivered_at = case when $2::text = 'delivered' then now() else delivered_at end,
             last_status = $5::int, last_error = $6::text, claim_token = null, lease_until = null
         where webhook_id = $1`,
        [claimed.webhookId, state, attempts, delayMs, status ?? null, outcome.error ?? null],
      );
      return state;
    });
  }

  /**
   * Sends a transaction's callbacks to the merchant again, in order, with the full schedule:
   * delivered, abandoned and waiting ones become due now, keeping their webhook ids. Returns how many.
   */
  async resend(merchantId: string, internalReference: string): Promise<number> {
    const rows = await this.sql.query(
      `update webhook_deliveries set state = 'pending', attempts = 0, next_attempt_at = now()
       where merchant_id = $1 and internal_reference = $2 and state in ('delivered', 'abandoned', 'pending')
       returning webhook_id`,
      [merchantId, internalReference],
    );
    return rows.length;
  }

  /** Abandoned deliveries (all, or those of `webhookIds`) start the schedule again now. Returns how many. */
  async retryAbandoned(webhookIds?: string[]): Promise<number> {
    const rows = await this.sql.query(
      `update webhook_deliveries set state = 'pending', attempts = 0, next_attempt_at = now()
       where state = 'abandoned' and ($1::text[] is null or webhook_id = any($1::text[]))
       returning webhook_id`,
      [webhookIds ?? null],
    );
    return rows.length;
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
