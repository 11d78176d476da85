import type { DeliveryState } from '@paygate/contracts';
import type { SqlClient } from '@paygate/sql';
import { POSTGRES_DIALECT } from './postgres-dialect';
import { SQLITE_DIALECT } from './sqlite-dialect';

/** A delivery about to be queued: `targetHost` null when it cannot be sent (`lastError` says why). */
export interface EncodedDelivery {
  webhookId: string;
  merchantId: string;
  internalReference: string;
  sequence: number;
  eventName: string;
  awaits: readonly string[];
  targetUrl: string | null;
  targetHost: string | null;
  body: string;
  lastError: string | null;
  /** From now to its first attempt. */
  delayMs: number;
  correlationId: string | null;
  traceparent: string | null;
}

/** A delivery enqueue inserted. */
export interface AddedDelivery {
  webhook_id: string;
  internal_reference: string;
  target_host: string | null;
  next_attempt_at: Date | string;
  state: DeliveryState;
}

/** An attempt as it is recorded. */
export interface AttemptToRecord {
  webhookId: string;
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  responseExcerpt: string;
  error: string | null;
}

/** What an attempt leaves its delivery in: its next attempt `delayMs` from now when it is still pending. */
export interface DeliveryOutcome {
  webhookId: string;
  state: DeliveryState;
  attempts: number;
  delayMs: number;
  status: number | null;
  error: string | null;
}

/** A row of the callback stream; `transaction_id` is 0 where the position alone orders (SQLite). */
export interface StreamRow {
  transaction_id: string | number;
  position: string | number;
  webhook_id: string;
  internal_reference: string;
  event_name: string;
  body: string;
  headers: unknown;
  sent: boolean | number;
}

/**
 * The statements of the callback deliveries and the callback stream in one dialect (SqlClient.dialect), where SQL must
 * differ: the rest, and every decision, is DeliveryQueue's, DeliveryHistory's and CallbackStream's.
 */
export interface WebhooksDialect {
  /** Serialises claims (and the wake after a settlement) across dispatchers until `tx` ends. */
  lockClaims(tx: SqlClient): Promise<void>;
  /** Whether delivery `d` may be sent now (delivery-order.ts). */
  readonly ready: string;
  /**
   * Inserts the deliveries whose webhook id is new, and with `stream` those of them that cannot be sent into the
   * callback stream (unsigned); answers the ones inserted.
   */
  enqueue(client: SqlClient, deliveries: readonly EncodedDelivery[], stream: boolean): Promise<AddedDelivery[]>;
  /** Marks claimed deliveries in flight, each under its claim's token (the lease as ISO text). */
  markDelivering(tx: SqlClient, claims: readonly { webhookId: string; token: string }[]): Promise<void>;
  /** Records attempts, numbered on from each delivery's last, in the order given. */
  recordAttempts(tx: SqlClient, attempts: readonly AttemptToRecord[]): Promise<void>;
  /** Applies attempts' outcomes to their deliveries; answers when each is next due. */
  applyOutcomes(
    tx: SqlClient,
    outcomes: readonly DeliveryOutcome[],
  ): Promise<{ webhook_id: string; next_attempt_at: Date | string }[]>;
  /** `created_at` to the microsecond PostgreSQL keeps, as ISO text: a page's position compares exactly. */
  readonly createdAtExact: string;
  /** How many deliveries are pending and delivering, and how long (seconds) the oldest due one has waited. */
  readonly queueStats: string;
  /** A merchant's stream rows after the cursor's parts, in order, the first `limit`: only those no writer can precede. */
  streamAfter(client: SqlClient, merchantId: string, after: [string, string], limit: number): Promise<StreamRow[]>;
  /** The cursor of the stream's end: a reader starting there sees what is written after. */
  streamEnd(client: SqlClient): Promise<string>;
  /** Deletes stream rows older than `retentionMs`; answers how many. */
  pruneStream(client: SqlClient, retentionMs: number): Promise<number>;
}

/** Each dialect's statements, by SqlClient.dialect: PostgreSQL's on PGlite and PostgreSQL, SQLite's on SQLite. */
const DIALECTS: Record<SqlClient['dialect'], WebhooksDialect> = { postgres: POSTGRES_DIALECT, sqlite: SQLITE_DIALECT };

/** The statements for `client`'s engine. */
export const webhooksDialect = (client: SqlClient): WebhooksDialect => DIALECTS[client.dialect];
