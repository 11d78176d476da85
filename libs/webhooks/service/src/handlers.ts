import { Inject } from '@nestjs/common';
import { CommandHandler, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import {
  ListCallbacks,
  ListDeliveries,
  ResendCallbacks,
  RetryAbandonedDeliveries,
  SendTestCallback,
  StreamCallbacks,
  type DeliveryView,
} from '@paygate/contracts';
import type { CallbackStream, DeliveryHistory, DeliveryRecord, DeliveryWorker, TestCallbacks } from './delivery';

export const DISPATCHER = Symbol('Dispatcher');

export interface Dispatcher {
  history: DeliveryHistory;
  worker: DeliveryWorker;
  stream: CallbackStream;
  /** The merchant's current signing key, or null. */
  signingKey: (merchantId: string) => Promise<string | null>;
  testCallbacks: TestCallbacks;
}

@CommandHandler(ResendCallbacks)
export class ResendCallbacksHandler implements ICommandHandler<ResendCallbacks> {
  constructor(@Inject(DISPATCHER) private readonly dispatcher: Dispatcher) {}
  async execute({ payload }: ResendCallbacks) {
    const count = await this.dispatcher.history.resend(payload.merchantId, payload.internalReference);
    this.dispatcher.worker.notify();
    return { deliveries: count };
  }
}

@CommandHandler(RetryAbandonedDeliveries)
export class RetryAbandonedDeliveriesHandler implements ICommandHandler<RetryAbandonedDeliveries> {
  constructor(@Inject(DISPATCHER) private readonly dispatcher: Dispatcher) {}
  async execute({ payload }: RetryAbandonedDeliveries) {
    const count = await this.dispatcher.history.retryAbandoned(payload.webhookIds);
    this.dispatcher.worker.notify();
    return { deliveries: count };
  }
}

@QueryHandler(ListDeliveries)
export class ListDeliveriesHandler implements IQueryHandler<ListDeliveries> {
  constructor(@Inject(DISPATCHER) private readonly dispatcher: Dispatcher) {}
  async execute({ payload }: ListDeliveries) {
    return {
      deliveries: (await this.dispatcher.history.list({ ...payload, limit: payload.limit ?? 100 })).map(
        presentDelivery,
      ),
    };
  }
}

@QueryHandler(ListCallbacks)
export class ListCallbacksHandler implements IQueryHandler<ListCallbacks> {
  constructor(@Inject(DISPATCHER) private readonly dispatcher: Dispatcher) {}
  async execute({ payload }: ListCallbacks) {
    const { deliveries, next } = await this.dispatcher.history.page(payload);
    return { deliveries: deliveries.map(presentDelivery), ...(next && { next }) };
  }
}

@QueryHandler(StreamCallbacks)
export class StreamCallbacksHandler implements IQueryHandler<StreamCallbacks> {
  constructor(@Inject(DISPATCHER) private readonly dispatcher: Dispatcher) {}
  execute({ payload }: StreamCallbacks) {
    return this.dispatcher.stream.read(payload, () => this.dispatcher.signingKey(payload.merchantId));
  }
}

@CommandHandler(SendTestCallback)
export class SendTestCallbackHandler implements ICommandHandler<SendTestCallback> {
  constructor(@Inject(DISPATCHER) private readonly dispatcher: Dispatcher) {}
  execute({ payload }: SendTestCallback) {
    return this.dispatcher.testCallbacks.send(payload.merchantId);
  }
}

export const DISPATCHER_HANDLERS = [
  ResendCallbacksHandler,
  RetryAbandonedDeliveriesHandler,
  ListDeliveriesHandler,
  ListCallbacksHandler,
  StreamCallbacksHandler,
  SendTestCallbackHandler,
];

const iso = (date: Date | null) => date?.toISOString() ?? null;

/** A delivery as the admin API shows it. */
function presentDelivery(record: DeliveryRecord): DeliveryView {
  return {
    webhook_id: record.webhookId,
    merchant_id: record.merchantId,
    internal_reference: record.internalReference,
    event: record.eventName,
    target_url: record.targetUrl,
    state: record.state,
    next_attempt_at: iso(record.nextAttemptAt),
    created_at: record.createdAt.toISOString(),
    delivered_at: iso(record.deliveredAt),
    last_status: record.lastStatus,
    last_error: record.lastError,
    attempts: record.attempts.map((attempt) => ({
      attempt: attempt.attempt,
      started_at: attempt.startedAt.toISOString(),
      duration_ms: attempt.durationMs,
      status_code: attempt.statusCode,
      response_excerpt: attempt.responseExcerpt,
      error: attempt.error,
    })),
  };
}
