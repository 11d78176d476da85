import { serviceRef, type MessageSpec } from '../service-contract';

export interface ResendCallbacksCommand {
  merchantId: string;
  internalReference: string;
}

export type DeliveryState = 'pending' | 'delivering' | 'delivered' | 'abandoned' | 'undeliverable';

export interface ListDeliveriesQuery {
  state?: DeliveryState;
  merchantId?: string;
  internalReference?: string;
  limit?: number;
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

/** The webhooks context's request-reply surface (gateway → webhook-dispatcher). */
export type WebhooksContract = {
  'webhooks.resendCallbacks': MessageSpec<ResendCallbacksCommand, { deliveries: number }> & { kind: 'command' };
  'webhooks.listDeliveries': MessageSpec<ListDeliveriesQuery, { deliveries: DeliveryView[] }> & { kind: 'query' };
  'webhooks.retryDeliveries': MessageSpec<RetryDeliveriesCommand, { deliveries: number }> & { kind: 'command' };
};

export const WEBHOOKS_SERVICE = serviceRef<WebhooksContract>('webhooks');
