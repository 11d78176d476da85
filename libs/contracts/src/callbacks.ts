/** Commands the webhook dispatcher serves (request-reply from the gateway). */
export const CALLBACK_COMMANDS = {
  resend: 'callbacks.resend',
  listDeliveries: 'deliveries.list',
  retryAbandoned: 'deliveries.retry',
} as const;

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
