import type { DeliveryState } from '@paygate/contracts';
import { inTextList, sqlNow, textList, type SqlClient, type SqlDatabase } from '@paygate/sql';
import { migrateWebhooks } from '../migrations';
import { CALLBACK_QUEUE } from './delivery-order';
import { webhooksDialect } from './webhooks-dialect';

export type { DeliveryState };

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

/** Where a page of a merchant's deliveries ended: `createdAt` to the microsecond, as the table holds it. */
export interface DeliveryPosition {
  createdAt: string;
  webhookId: string;
}

export interface DeliveryPageQuery {
  merchantId: string;
  state?: DeliveryState;
  internalReference?: string;
  after?: DeliveryPosition;
  limit: number;
}

interface DeliveryRow {
  /** created_at to the microsecond, for a page's position (a Date keeps milliseconds). */
  created_at_exact?: string;
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
 * The deliveries as the admin API sees them: each callback with every attempt at sending it
 * (`webhook_deliveries`, `webhook_attempts`), and the two ways to send callbacks again. Sending
 * again only makes a delivery due: the queue's claim still decides when it may go (DeliveryQueue).
 */
export class DeliveryHistory {
  private constructor(private readonly sql: SqlDatabase) {}

  static async open(sql: SqlDatabase): Promise<DeliveryHistory> {
    await migrateWebhooks(sql);
    return new DeliveryHistory(sql);
  }

  /** Deliveries oldest first, each with its attempts. */
  async list(query: DeliveryQuery): Promise<DeliveryRecord[]> {
    const rows = await this.sql.query<DeliveryRow>(
      `select ${DELIVERY_COLUMNS} from webhook_deliveries
       where (cast($1 as text) is null or state = cast($1 as text)) and (cast($2 as text) is null or merchant_id = cast($2 as text))
         and (cast($3 as text) is null or internal_reference = cast($3 as text))
       order by created_at, internal_reference, sequence, webhook_id
       limit $4`,
      [query.state ?? null, query.merchantId ?? null, query.internalReference ?? null, query.limit],
    );
    return this.withAttempts(rows);
  }

  /**
   * A merchant's deliveries newest first, each with its attempts: keyset-paged on (created_at,
   * webhook_id), so deliveries queued meanwhile never shift a page.
   */
  async page(query: DeliveryPageQuery): Promise<{ deliveries: DeliveryRecord[]; next?: DeliveryPosition }> {
    // Only the page after a position compares with one: PostgreSQL types $5 by created_at, SQLite compares ISO text.
    const after = query.after
      ? { where: 'and (created_at, webhook_id) < ($5, $6)', params: [query.after.createdAt, query.after.webhookId] }
      : { where: '', params: [] };
    const rows = await this.sql.query<DeliveryRow>(
      `select ${DELIVERY_COLUMNS}, ${webhooksDialect(this.sql).createdAtExact} as created_at_exact
       from webhook_deliveries
       where merchant_id = $1 and (cast($2 as text) is null or state = cast($2 as text))
         and (cast($3 as text) is null or internal_reference = cast($3 as text)) ${after.where}
       order by created_at desc, webhook_id desc
       limit $4`,
      [query.merchantId, query.state ?? null, query.internalReference ?? null, query.limit + 1, ...after.params],
    );
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    const deliveries = await this.withAttempts(page);
    return rows.length > query.limit && last
      ? { deliveries, next: { createdAt: last.created_at_exact!, webhookId: last.webhook_id } }
      : { deliveries };
  }

  private async withAttempts(rows: DeliveryRow[]): Promise<DeliveryRecord[]> {
    const attempts = rows.length
      ? await this.sql.query<AttemptRow>(
          `select webhook_id, attempt, started_at, duration_ms, status_code, response_excerpt, error
           from webhook_attempts where webhook_id${inTextList(this.sql, '$1')} order by webhook_id, attempt`,
          [
            textList(
              this.sql,
              rows.map((row) => row.webhook_id),
            ),
          ],
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

  /**
   * Sends a transaction's callbacks to the merchant again, in order, with the full schedule:
   * delivered, abandoned, waiting and in-flight ones become due now, keeping their webhook ids
   * (an attempt in flight then records only itself: its claim is no longer the delivery's).
   * Returns how many.
   */
  async resend(merchantId: string, internalReference: string): Promise<number> {
    return this.sql.transaction(async (tx) => {
      const rows = await tx.query<{ webhook_id: string; target_host: string }>(
        `update webhook_deliveries set state = 'pending', attempts = 0, next_attempt_at = ${sqlNow(tx)}, claim_token = null, lease_until = null
         where merchant_id = $1 and internal_reference = $2 and state in ('delivered', 'abandoned', 'pending', 'delivering')
         returning webhook_id, target_host`,
        [merchantId, internalReference],
      );
      await requeue(tx, rows);
      return rows.length;
    });
  }

  /** Abandoned deliveries (all, or those of `webhookIds`) start the schedule again now. Returns how many. */
  async retryAbandoned(webhookIds?: string[]): Promise<number> {
    return this.sql.transaction(async (tx) => {
      const rows = await tx.query<{ webhook_id: string; target_host: string }>(
        `update webhook_deliveries set state = 'pending', attempts = 0, next_attempt_at = ${sqlNow(tx)}
         where state = 'abandoned'${webhookIds ? ` and webhook_id${inTextList(tx, '$1')}` : ''}
         returning webhook_id, target_host`,
        webhookIds ? [textList(tx, webhookIds)] : [],
      );
      await requeue(tx, rows);
      return rows.length;
    });
  }
}

/**
 * Due now, each with a job of its own: one still held by an attempt in flight is taken from it (that attempt's claim no
 * longer counts).
 */
async function requeue(client: SqlClient, rows: { webhook_id: string; target_host: string }[]): Promise<void> {
  await CALLBACK_QUEUE.schedule(
    client,
    rows.map((row) => ({ key: row.webhook_id, lane: row.target_host, runAt: new Date() })),
    { replace: true },
  );
}
