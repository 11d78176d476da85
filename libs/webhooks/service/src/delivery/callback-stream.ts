import type { StreamCallbacksResult, StreamedCallback } from '@paygate/contracts';
import type { SqlClient, SqlDatabase } from '@paygate/sql';
import { migrateWebhooks } from '../migrations';
import { signedCallbackHeaders } from './callback-sender';

/** A reconnect within this long loses nothing (the SSE Last-Event-ID); older entries are deleted. */
export const STREAM_RETENTION_MS = 3_600_000;
/** How often a waiting read looks again when no attempt of this process woke it (another dispatcher's). */
const POLL_MS = 250;

/** What a worker records as it sends an attempt: the body and the exact headers it signed. */
export interface StreamEntry {
  merchantId: string;
  webhookId: string;
  internalReference: string;
  eventName: string;
  body: string;
  headers: Record<string, string>;
}

interface StreamRow {
  transaction_id: string;
  position: string;
  webhook_id: string;
  internal_reference: string;
  event_name: string;
  body: string;
  headers: Record<string, string> | null;
  sent: boolean;
}

const CURSOR = /^(\d{1,20})-(\d{1,20})$/;

/**
 * The merchant's callbacks as they are signed, for `paygate listen` (the gateway's SSE route long
 * polls `read` through the webhooks contract). The delivery worker records each attempt's body and
 * headers just before it sends them; a callback with no URL to go to is recorded when it is queued
 * and signed when it is read, with the merchant's current key, as a developer without a receiver
 * expects (Stripe's CLI forwards events with no endpoint registered). Order and resumption are the
 * event log's: (transaction_id, position), read only below the oldest running transaction.
 */
export class CallbackStream {
  private readonly waiters = new Set<() => void>();
  private stopped = false;

  private constructor(private readonly sql: SqlDatabase) {}

  static async open(sql: SqlDatabase): Promise<CallbackStream> {
    await migrateWebhooks(sql);
    return new CallbackStream(sql);
  }

  /** Records one attempt as it is about to be sent, and wakes waiting reads of this process. */
  async record(entry: StreamEntry, client: SqlClient = this.sql): Promise<void> {
    await client.query(
      `insert into webhook_stream (merchant_id, webhook_id, internal_reference, event_name, body, headers, sent)
       values ($1, $2, $3, $4, $5, $6::jsonb, true)`,
      [
        entry.merchantId,
        entry.webhookId,
        entry.internalReference,
        entry.eventName,
        entry.body,
        JSON.stringify(entry.headers),
      ],
    );
    this.wake();
  }

  /** Wakes waiting reads (after deliveries without a URL were queued in this process). */
  wake(): void {
    for (const waiter of this.waiters) waiter();
  }

  /**
   * The merchant's callbacks after `after`, waiting up to `waitMs` for one; `signingKey` signs the
   * ones recorded unsigned (no callback URL). Without `after`: none, and the cursor of the end.
   */
  async read(
    query: { merchantId: string; after?: string; waitMs: number; limit: number },
    signingKey: () => Promise<string | null>,
  ): Promise<StreamCallbacksResult> {
    if (query.after === undefined) return { callbacks: [], cursor: await this.end() };
    const match = CURSOR.exec(query.after);
    if (!match) return { callbacks: [], cursor: await this.end(), invalidCursor: true };
    const deadline = Date.now() + query.waitMs;
    while (!this.stopped) {
      const rows = await this.sql.query<StreamRow>(
        `select transaction_id::text as transaction_id, position::text as position, webhook_id, internal_reference, event_name, body, headers, sent
         from webhook_stream
         where merchant_id = $1 and (transaction_id, position) > ($2::xid8, $3::bigint)
           and transaction_id < pg_snapshot_xmin(pg_current_snapshot())
         order by transaction_id, position limit $4`,
        [query.merchantId, match[1], match[2], query.limit],
      );
      if (rows.length > 0) {
        const last = rows[rows.length - 1];
        // Rows skipped (no signing key) still move the cursor on.
        return { callbacks: await presentAll(rows, signingKey), cursor: cursorOf(last) };
      }
      const left = deadline - Date.now();
      if (left <= 0) return { callbacks: [], cursor: query.after };
      await this.pause(Math.min(left, POLL_MS));
    }
    return { callbacks: [], cursor: query.after };
  }

  /**
   * Waiting reads answer at once, and later ones without reading: the process is shutting down, its gateway streams
   * end.
   */
  stop(): void {
    this.stopped = true;
    this.wake();
  }

  /** Deletes entries older than the retention; returns how many. */
  async prune(retentionMs = STREAM_RETENTION_MS): Promise<number> {
    const rows = await this.sql.query(
      `delete from webhook_stream where created_at < now() - $1::bigint * interval '1 millisecond' returning position`,
      [retentionMs],
    );
    return rows.length;
  }

  /** Everything below the oldest running transaction has been read: a new listener starts after it. */
  private async end(): Promise<string> {
    const [row] = await this.sql.query<{ horizon: string }>(
      `select pg_snapshot_xmin(pg_current_snapshot())::text as horizon`,
    );
    return `${BigInt(row.horizon) - 1n}-${2n ** 63n - 1n}`;
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
    });
  }
}

async function presentAll(rows: StreamRow[], signingKey: () => Promise<string | null>): Promise<StreamedCallback[]> {
  let key: string | null | undefined;
  const callbacks: StreamedCallback[] = [];
  for (const row of rows) {
    let headers = row.headers;
    if (headers === null) {
      key = key === undefined ? await signingKey() : key;
      // A merchant without a signing key has nothing to verify with: such a callback is not streamed.
      if (key === null) continue;
      headers = signedCallbackHeaders(key, row.webhook_id, row.body, Math.floor(Date.now() / 1_000));
    }
    callbacks.push({
      cursor: cursorOf(row),
      webhook_id: row.webhook_id,
      event: row.event_name,
      internal_reference: row.internal_reference,
      body: row.body,
      headers,
      sent_to_callback_url: row.sent,
    });
  }
  return callbacks;
}

const cursorOf = (row: Pick<StreamRow, 'transaction_id' | 'position'>) => `${row.transaction_id}-${row.position}`;
