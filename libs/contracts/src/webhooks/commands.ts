import { ContractCommand, ContractQuery, serviceContract } from '../service-contract';

export interface ResendCallbacksCommand {
  merchantId: string;
  internalReference: string;
}

export const DELIVERY_STATES = ['pending', 'delivering', 'delivered', 'abandoned', 'undeliverable'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

export interface ListDeliveriesQuery {
  state?: DeliveryState;
  merchantId?: string;
  internalReference?: string;
  limit?: number;
}

/** Where a page of a merchant's callbacks ended; opaque to the gateway, which hands it back. */
export interface CallbackPosition {
  createdAt: string;
  webhookId: string;
}

/** A page of one merchant's own deliveries, newest first (GET /v1/callbacks). */
export interface ListCallbacksQuery {
  merchantId: string;
  state?: DeliveryState;
  internalReference?: string;
  after?: CallbackPosition;
  limit: number;
}

export interface CallbackPage {
  deliveries: DeliveryView[];
  /** Absent on the last page. */
  next?: CallbackPosition;
}

export interface RetryDeliveriesCommand {
  /** Absent: every abandoned delivery. */
  webhookIds?: string[];
}

/** One delivery and its attempts, as the admin API shows them. */
export interface DeliveryView {
  webhook_id: string;
  merchant_id: string;
  internal_reference: string;
  event: string;
  target_url: string | null;
  state: DeliveryState;
  next_attempt_at: string | null;
  created_at: string;
  delivered_at: string | null;
  last_status: number | null;
  last_error: string | null;
  attempts: {
    attempt: number;
    started_at: string;
    duration_ms: number;
    status_code: number | null;
    response_excerpt: string;
    error: string | null;
  }[];
}

/**
 * A long poll of the merchant's callback stream (`paygate listen`): the callbacks signed for the
 * merchant after `after`, waiting up to `waitMs` for the first one. Without `after` it answers at
 * once with no callbacks and the cursor of the stream's end, so a new listener sees what comes next.
 */
export interface StreamCallbacksQuery {
  merchantId: string;
  /** A cursor this query returned earlier (the SSE event id). */
  after?: string;
  /** At most this long; kept below COMMAND_TIMEOUT_MS by the caller. */
  waitMs: number;
  limit: number;
}

/**
 * One callback as it was signed for the merchant: the exact body and the headers it was (or would have been) sent with.
 */
export interface StreamedCallback {
  /** Position in the stream: resume after it. */
  cursor: string;
  webhook_id: string;
  event: string;
  internal_reference: string;
  /** The exact JSON text the signatures cover. */
  body: string;
  /** webhook-id, webhook-timestamp, webhook-signature (Standard Webhooks) and hmac-signature. */
  headers: Record<string, string>;
  /**
   * True when this copy was also sent to the merchant's callback URL; false when it has none (signed for the stream
   * only).
   */
  sent_to_callback_url: boolean;
}

export interface StreamCallbacksResult {
  callbacks: StreamedCallback[];
  /** Resume after this one (the last callback's, or the end of the stream as read). */
  cursor: string;
  /** The cursor given is not one of this stream's: the caller should say so rather than start over silently. */
  invalidCursor?: boolean;
}

/** One signed test callback to the merchant's collection callback URL, sent now (the merchant dashboard). */
export interface SendTestCallbackCommand {
  merchantId: string;
}

/**
 * What the test callback met: the receiver's status, or why none came (`error`: no URL set, an address the guard
 * refuses, a connection failure, a timeout). Never stored as a delivery, never retried.
 */
export interface TestCallbackResult {
  /** The merchant's collection callback URL; null when it has none. */
  url: string | null;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** The webhook-id the callback was signed with (fresh for each test). */
  webhookId: string;
}

export class ResendCallbacks extends ContractCommand<ResendCallbacksCommand, { deliveries: number }> {}
export class ListDeliveries extends ContractQuery<ListDeliveriesQuery, { deliveries: DeliveryView[] }> {}
export class ListCallbacks extends ContractQuery<ListCallbacksQuery, CallbackPage> {}
export class RetryAbandonedDeliveries extends ContractCommand<RetryDeliveriesCommand, { deliveries: number }> {}
export class StreamCallbacks extends ContractQuery<StreamCallbacksQuery, StreamCallbacksResult> {}
export class SendTestCallback extends ContractCommand<SendTestCallbackCommand, TestCallbackResult> {}

/** The webhooks context's request-reply surface (gateway → webhook-dispatcher). */
export const WEBHOOKS_SERVICE = serviceContract(
  'webhooks',
  { servedBy: 'webhook-dispatcher', sentBy: ['api-gateway'] },
  {
    'webhooks.resendCallbacks': ResendCallbacks,
    'webhooks.listDeliveries': ListDeliveries,
    'webhooks.listCallbacks': ListCallbacks,
    'webhooks.retryDeliveries': RetryAbandonedDeliveries,
    'webhooks.streamCallbacks': StreamCallbacks,
    'webhooks.sendTestCallback': SendTestCallback,
  },
);

export type WebhooksContract = typeof WEBHOOKS_SERVICE.messages;
