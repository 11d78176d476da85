import { Inject, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { collectionDecider, type CollectionTimerKind } from '@paygate/collections-domain';
import { connectorRegistryFor, type ConnectorRegistry } from '@paygate/connectors';
import {
  COLLECTION_STREAM_PREFIX,
  COLLECTIONS_PUBLICATION,
  COLLECTIONS_SERVICE,
  PAYMENTS_INTEGRATION_EVENTS,
  PAYMENTS_PUBLICATION,
  readPaymentsIntegrationEvent,
} from '@paygate/contracts';
import { DeciderRuntime } from '@paygate/event-store';
import { integrationEnvelope, type RunningConsumer } from '@paygate/messaging';
import type { Config } from '@paygate/config';
import {
  APP_URL,
  CONFIG,
  executeWithCqrs,
  INFRASTRUCTURE,
  LOGGER,
  METRICS,
  type AppUrl,
  type Infrastructure,
} from '@paygate/platform';
import type { Logger } from '@paygate/logging';
import type { Metrics } from '@paygate/metrics';
import { TimerWorker } from '@paygate/timers';
import { CollectionProjection, COLLECTION_TIMERS } from './collection-projection';
import { CollectionsService } from './collections.service';
import { collectionsConfig } from './config';
import { AcceptPrn, COLLECTION_HANDLERS, FireCollectionTimer, RejectPrn } from './handlers/collection-handlers';
import { reportOldestPending } from './pending-collections-metric';
import { ProviderCallbacksController } from './provider-callbacks.controller';
import { ReferenceRegistry } from './reference-registry';
import { CONNECTORS } from './tokens';

const PROJECTION = Symbol('CollectionProjection');

/**
 * The collections service: serves the collection commands, owns the collection streams and
 * publishes them, projects its read model and timers, fires timers and takes provider callbacks.
 */
@Module({
  controllers: [ProviderCallbacksController],
  providers: [
    {
      provide: PROJECTION,
      inject: [INFRASTRUCTURE, CONFIG],
      useFactory: (infra: Infrastructure, config: Config) =>
        CollectionProjection.open(infra.sql, infra.store, config.collections.statusPollMs),
    },
    {
      // Built on first use: the connectors' default base URLs are this process's own, known once it listens.
      provide: CONNECTORS,
      inject: [APP_URL, CONFIG, METRICS],
      useFactory: (appUrl: AppUrl, config: Config, metrics: Metrics) => {
        let registry: ConnectorRegistry | undefined;
        return () =>
          (registry ??= connectorRegistryFor(config.catalogue.values(), config.connectors, appUrl.get(), metrics));
      },
    },
    {
      provide: CollectionsService,
      inject: [INFRASTRUCTURE, LOGGER, METRICS, APP_URL, PROJECTION, CONNECTORS, CONFIG],
      useFactory: async (
        infra: Infrastructure,
        log: Logger,
        metrics: Metrics,
        appUrl: AppUrl,
        projection: CollectionProjection,
        connectors: () => ConnectorRegistry,
        appConfig: Config,
      ) => {
        const config = collectionsConfig(appConfig);
        return new CollectionsService({
          collections: new DeciderRuntime(infra.store, collectionDecider, { oneFlowPerStream: true }),
          references: await ReferenceRegistry.open(infra.sql),
          projection,
          config,
          collectors: (providerCode) => connectors().get(providerCode, 'collect').collect,
          urls: {
            providerCallback: () => config.providerCallbackUrl ?? appUrl.get(),
            checkoutReturn: () => config.checkoutReturnUrl ?? appUrl.get(),
          },
          log,
          metrics,
        });
      },
    },
    ...COLLECTION_HANDLERS,
  ],
})
export class CollectionsServiceModule implements OnApplicationBootstrap, OnApplicationShutdown {
  private consumer?: RunningConsumer;
  private verdicts?: RunningConsumer;
  private timerWorker?: TimerWorker<CollectionTimerKind>;
  private stopReportingPending?: () => void;

  constructor(
    @Inject(INFRASTRUCTURE) private readonly infrastructure: Infrastructure,
    @Inject(LOGGER) private readonly log: Logger,
    @Inject(METRICS) private readonly metrics: Metrics,
    @Inject(PROJECTION) private readonly projection: CollectionProjection,
    @Inject(CONFIG) private readonly config: Config,
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { commands, events, sql } = this.infrastructure;
    await commands.serve(COLLECTIONS_SERVICE, executeWithCqrs(this.commandBus, this.queryBus));
    await events.publish([COLLECTION_STREAM_PREFIX], COLLECTIONS_PUBLICATION);
    this.consumer = await this.projection.start(events);
    this.stopReportingPending = reportOldestPending(this.metrics, this.projection);
    // Collect-for-payment: service-payments' verdict on a PRN lets the collection proceed or cancels it.
    this.verdicts = await events.consume(
      { group: 'collections-prn-verdicts', publications: [PAYMENTS_PUBLICATION] },
      async (recorded) => {
        const event = readPaymentsIntegrationEvent(integrationEnvelope(recorded));
        if (event?.type === PAYMENTS_INTEGRATION_EVENTS.prnValidated)
          await this.commandBus.execute(new AcceptPrn(event.data.payment.internalReference));
        if (event?.type === PAYMENTS_INTEGRATION_EVENTS.prnRejected)
          await this.commandBus.execute(new RejectPrn(event.data.payment.internalReference, event.data.reason));
      },
    );
    this.timerWorker = new TimerWorker({
      timers: COLLECTION_TIMERS,
      sql,
      fire: (timer) => this.commandBus.execute(new FireCollectionTimer(timer)),
      tickMs: this.config.collections.timerTickMs,
      log: this.log,
    });
    this.timerWorker.start();
  }

  /**
   * Runs after Nest has closed the HTTP server (which waits for requests in flight): work stops once no request can
   * start more.
   */
  async onApplicationShutdown(): Promise<void> {
    this.stopReportingPending?.();
    await this.timerWorker?.stop();
    await this.verdicts?.stop();
    await this.consumer?.stop();
  }
}
