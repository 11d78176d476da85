import type { StreamCallbacksResult, StreamedCallback } from '@paygate/contracts';
import { fromJson, type SqlClient, type SqlDatabase } from '@paygate/sql';
import { migrateWebhooks } from '../migrations';
import { signedCallbackHeaders } from './callback-sender';
import { webhooksDialect, type StreamRow } from './webhooks-dialect';

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

const CURSOR = /^(\d{1,20})-(\d{1,20})$/;

/**
 * The merchant's callbacks as they are signed, for `paygate listen` (the gateway's SSE route long
 * polls `read` through the webhooks contract). The delivery worker records each attempt's body and
 * headers just before it sends them; a callback with no URL to go to is recorded when it is queued
 * and signed when it is read, with the merchant's current key, as a developer without a receiver
 * expects (Stripe's CLI forwards events with no endpoint registered). Order and resumption are the
 * event log's (the dialect's streamAfter): a reader never passes a row that commits later.
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
       values ($1, $2, $3, $4, $5, $6, true)`,
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
      const rows = await webhooksDialect(this.sql).streamAfter(
        this.sql,
        query.merchantId,
        [match[1], match[2]],
        query.limit,
      );
      if (rows.length > 0) {
        const last = rows[rows.length - 1];
        // Rows skipped (no signing key) still move the cursor on.
        return { callbacks: await presentAll(this.sql, rows, signingKey), cursor: cursorOf(last) };
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
  prune(retentionMs = STREAM_RETENTION_MS): Promise<number> {
    return webhooksDialect(this.sql).pruneStream(this.sql, retentionMs);
  }

  /** A new listener starts after everything that can be read already. */
  private end(): Promise<string> {
    return webhooksDialect(this.sql).streamEnd(this.sql);
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

async function presentAll(
  client: SqlClient,
  rows: StreamRow[],
  signingKey: () => Promise<string | null>,
): Promise<StreamedCallback[]> {
  let key: string | null | undefined;
  const callbacks: StreamedCallback[] = [];
  for (const row of rows) {
    let headers = fromJson<Record<string, string> | null>(client, row.headers);
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
      sent_to_callback_url: Boolean(row.sent),
    });
  }
  return callbacks;
}

const cursorOf = (row: Pick<StreamRow, 'transaction_id' | 'position'>) => `${row.transaction_id}-${row.position}`;
