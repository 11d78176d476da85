import { Inject, Module, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import {
  CALLBACK_COMMANDS,
  COLLECTION_STREAM_PREFIX,
  SERVICES,
  type ListDeliveriesQuery,
  type ResendCallbacksCommand,
  type RetryDeliveriesCommand,
} from '@paygate/contracts';
import type { Config } from '@paygate/config';
import { MerchantAccounts, secretBoxFromConfig } from '@paygate/merchants';
import type { RunningConsumer } from '@paygate/messaging';
import { CONFIG, INFRASTRUCTURE, LOGGER, type Infrastructure, type Logger } from '@paygate/platform';
import { CallbackProjector } from './callback-projector';
import { CallbackSender, DeliveryStore, DeliveryWorker, type DeliveryRecord } from './delivery';

const DISPATCHER = Symbol('Dispatcher');

interface Dispatcher {
  deliveries: DeliveryStore;
  projector: CallbackProjector;
  worker: DeliveryWorker;
}

/** A delivery as the admin API shows it. */
function presentDelivery(record: DeliveryRecord) {
  return {
    webhook_id: record.webhookId,
    merchant_id: record.merchantId,
    internal_reference: record.internalReference,
    event: record.eventName,
    target_url: record.targetUrl,
    state: record.state,
    next_attempt_at: record.nextAttemptAt,
    created_at: record.createdAt,
    delivered_at: record.deliveredAt,
    last_status: record.lastStatus,
    last_error: record.lastError,
    attempts: record.attempts.map((attempt) => ({
      attempt: attempt.attempt,
      started_at: attempt.startedAt,
      duration_ms: attempt.durationMs,
      status_code: attempt.statusCode,
      response_excerpt: attempt.responseExcerpt,
      error: attempt.error,
    })),
  };
}

/**
 * The webhook dispatcher: consumes the services' events through the broker, schedules a
 * signed callback for each one a merchant is told about, and delivers them.
 */
@Module({
  providers: [
    {
      provide: DISPATCHER,
      inject: [INFRASTRUCTURE, LOGGER, CONFIG],
      useFactory: async (infra: Infrastructure, log: Logger, appConfig: Config): Promise<Dispatcher> => {
        const config = appConfig.delivery;
        // The dispatcher signs callbacks with the merchants' sealed signing keys: MASTER_KEY is required.
        const merchants = await MerchantAccounts.open(infra.sql, secretBoxFromConfig(appConfig.merchants.masterKey));
        const deliveries = await DeliveryStore.open(infra.sql, config);
        const worker = new DeliveryWorker({
          store: deliveries,
          sender: new CallbackSender(config),
          keys: async (merchantId) => (await merchants.keys(merchantId))?.signingKey ?? null,
          config,
          log,
        });
        return { deliveries, worker, projector: new CallbackProjector(infra.store, merchants, deliveries) };
      },
    },
  ],
})
export class WebhooksServiceModule implements OnApplicationBootstrap, OnModuleDestroy {
  private consumer?: RunningConsumer;

  constructor(
    @Inject(INFRASTRUCTURE) private readonly infrastructure: Infrastructure,
    @Inject(DISPATCHER) private readonly dispatcher: Dispatcher,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { deliveries, projector, worker } = this.dispatcher;
    await this.infrastructure.commands.serve(SERVICES.webhooks, {
      [CALLBACK_COMMANDS.resend]: async (payload) => {
        const { merchantId, internalReference } = payload as unknown as ResendCallbacksCommand;
        const count = await deliveries.resend(merchantId, internalReference);
        worker.notify();
        return { deliveries: count };
      },
      [CALLBACK_COMMANDS.listDeliveries]: async (payload) => {
        const query = payload as ListDeliveriesQuery;
        return { deliveries: (await deliveries.list({ ...query, limit: query.limit ?? 100 })).map(presentDelivery) };
      },
      [CALLBACK_COMMANDS.retryAbandoned]: async (payload) => {
        const count = await deliveries.retryAbandoned((payload as RetryDeliveriesCommand).webhookIds);
        worker.notify();
        return { deliveries: count };
      },
    });
    this.consumer = await this.infrastructure.events.consume(
      { group: 'webhook-dispatcher', streamPrefixes: [COLLECTION_STREAM_PREFIX] },
      async (event) => {
        if (await projector.project(event)) worker.notify();
      },
    );
    worker.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.consumer?.stop();
    await this.dispatcher.worker.stop();
  }
}
