import {
  Inject,
  Module,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleDestroy,
} from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { Config } from '@paygate/config';
import {
  WEBHOOKS_SERVICE,
  COLLECTIONS_PUBLICATION,
  DISBURSEMENTS_PUBLICATION,
  PAYMENTS_PUBLICATION,
} from '@paygate/contracts';
import { MerchantAccounts, secretBoxFromConfig } from '@paygate/merchants';
import { contextOfEvent, withLogContext, type Logger } from '@paygate/logging';
import type { RecordedEvent } from '@paygate/event-store';
import { integrationEnvelope, traceparentOf, type RunningConsumer } from '@paygate/messaging';
import { CONFIG, executeWithCqrs, INFRASTRUCTURE, LOGGER, METRICS, type Infrastructure } from '@paygate/platform';
import type { Metrics } from '@paygate/metrics';
import { CallbackProjector, webhookIdFor, type DeliveryFlow } from './callback-projector';
import {
  CallbackSender,
  CallbackStream,
  DeliveryHistory,
  DeliveryQueue,
  DeliveryWorker,
  reportQueue,
  TestCallbacks,
} from './delivery';
import { DISPATCHER, DISPATCHER_HANDLERS, type Dispatcher } from './handlers';

/** How often the callback stream is pruned of entries past its retention. */
const STREAM_PRUNE_MS = 60_000;

const PROJECTOR = Symbol('CallbackProjector');

type DispatcherParts = Dispatcher & {
  queue: DeliveryQueue;
  sender: CallbackSender;
  merchants: MerchantAccounts;
  stopReportingQueue: () => void;
};

/**
 * The webhook dispatcher: consumes the events other contexts publish, schedules a signed
 * callback for each one a merchant is told about, and delivers them.
 */
@Module({
  providers: [
    {
      provide: DISPATCHER,
      inject: [INFRASTRUCTURE, LOGGER, METRICS, CONFIG],
      useFactory: async (
        infra: Infrastructure,
        log: Logger,
        metrics: Metrics,
        appConfig: Config,
      ): Promise<DispatcherParts> => {
        const config = appConfig.delivery;
        // The dispatcher signs callbacks with the merchants' sealed signing keys: MASTER_KEY is required.
        const merchants = await MerchantAccounts.open(
          infra.sql,
          secretBoxFromConfig(appConfig.merchants.masterKey),
          appConfig.mode,
        );
        const queue = await DeliveryQueue.open(infra.sql, config);
        const history = await DeliveryHistory.open(infra.sql);
        const stream = await CallbackStream.open(infra.sql);
        const signingKey = async (merchantId: string) => (await merchants.keys(merchantId))?.signingKey ?? null;
        const sender = new CallbackSender(config);
        const worker = new DeliveryWorker({
          queue,
          sql: infra.sql,
          sender,
          keys: signingKey,
          stream,
          config,
          log,
          metrics,
        });
        return {
          queue,
          sender,
          history,
          worker,
          stream,
          signingKey,
          testCallbacks: new TestCallbacks({ sender, merchants, signingKey }),
          merchants,
          stopReportingQueue: reportQueue(metrics, infra.sql),
        };
      },
    },
    {
      provide: PROJECTOR,
      inject: [DISPATCHER],
      useFactory: ({ merchants, queue }: DispatcherParts) => new CallbackProjector(merchants, queue),
    },
    ...DISPATCHER_HANDLERS,
  ],
})
export class WebhooksServiceModule implements OnApplicationBootstrap, OnModuleDestroy, OnApplicationShutdown {
  private consumer?: RunningConsumer;
  private pruning?: NodeJS.Timeout;

  constructor(
    @Inject(INFRASTRUCTURE) private readonly infrastructure: Infrastructure,
    @Inject(DISPATCHER) private readonly dispatcher: DispatcherParts,
    @Inject(PROJECTOR) private readonly projector: CallbackProjector,
    @Inject(LOGGER) private readonly log: Logger,
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.infrastructure.commands.serve(WEBHOOKS_SERVICE, executeWithCqrs(this.commandBus, this.queryBus));
    // One consumer group for the three contexts. In process that is one store subscription, which
    // hands a collection's events, its payment's and its refunds' over in commit order (so no
    // callback waits for its cause) and costs PGlite's one thread one subscription, not three.
    // Over Kafka it is one group on three topics, where a payment or refund event may overtake
    // its collection's: the queue keeps the order anyway (CallbackOrder's `awaits`), so more
    // groups would only isolate the contexts from an event this dispatcher cannot read (a version
    // from the future stops the group until the dispatcher is upgraded, as a collections one
    // does). Kafka reads a topic new to the group from the beginning, so no event is skipped.
    const publications = [COLLECTIONS_PUBLICATION, PAYMENTS_PUBLICATION, DISBURSEMENTS_PUBLICATION];
    this.consumer = await this.infrastructure.events.consumePages(
      { group: 'webhook-dispatcher', publications },
      async (page) => {
        const scheduled = new Set(
          (await this.projector.project(page.map(integrationEnvelope), page.map(flowOf))).map(
            (delivery) => delivery.webhookId,
          ),
        );
        if (scheduled.size === 0) return;
        for (const event of page) {
          const webhookId = webhookIdFor(event.id);
          if (scheduled.has(webhookId))
            withLogContext(contextOfEvent(event), () => this.log.info('callback scheduled', { webhook_id: webhookId }));
        }
        this.dispatcher.worker.notify();
        // Callbacks without a URL are in the stream already: listeners waiting in this process hear them now.
        this.dispatcher.stream.wake();
      },
    );
    this.dispatcher.worker.start();
    this.pruning = setInterval(() => {
      this.dispatcher.stream
        .prune()
        .catch((error: unknown) => this.log.warn('cannot prune the callback stream', { error }));
    }, STREAM_PRUNE_MS);
    this.pruning.unref();
  }

  /**
   * Long polls of the callback stream answer before the HTTP server closes, so the streams they
   * feed can end. (A dispatcher's command listener stops first, letting the polls in hand run
   * out, at most 5 s; the gateways ask another dispatcher.)
   */
  onModuleDestroy(): void {
    this.dispatcher.stream.stop();
  }

  /**
   * Runs after Nest has closed the HTTP server (which waits for requests in flight): work stops once no request can
   * start more.
   */
  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.pruning);
    await this.consumer?.stop();
    await this.dispatcher.worker.stop();
    await this.dispatcher.sender.close();
    this.dispatcher.stopReportingQueue();
  }
}

/** The flow a callback of `event` belongs to, and the span (the consumer's) its attempts continue. */
function flowOf(event: RecordedEvent): DeliveryFlow {
  return { correlationId: contextOfEvent(event).correlationId, traceparent: traceparentOf(event) };
}
