import { Inject, Module, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import {
  COLLECTION_COMMANDS,
  COLLECTION_STREAM_PREFIX,
  SERVICES,
  type ConfirmCollectionCommand,
  type FindCollectionQuery,
  type InitializeCollectionCommand,
} from '@paygate/contracts';
import { createConnectorRegistry, type ConnectorRegistry } from '@paygate/connectors';
import type { RunningConsumer } from '@paygate/messaging';
import { APP_URL, INFRASTRUCTURE, LOGGER, type AppUrl, type Infrastructure, type Logger } from '@paygate/platform';
import { CollectionProjection } from './collection-projection';
import { CollectionRepository } from './collection-repository';
import { CollectionTimers } from './collection-timers';
import { CollectionsService } from './collections.service';
import { readCollectionsConfig } from './config';
import { COLLECTIONS_SERVICE, CONNECTORS, ProviderCallbacksController } from './provider-callbacks.controller';
import { ReferenceRegistry } from './reference-registry';
import { TimerWorker } from './timer-worker';

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
      inject: [INFRASTRUCTURE],
      useFactory: (infra: Infrastructure) => CollectionProjection.open(infra.sql, infra.store, readCollectionsConfig().statusPollMs),
    },
    {
      // Built on first use: the connectors' default base URLs are this process's own, known once it listens.
      provide: CONNECTORS,
      inject: [APP_URL],
      useFactory: (appUrl: AppUrl) => {
        const { catalogue } = readCollectionsConfig();
        let registry: ConnectorRegistry | undefined;
        return () => (registry ??= createConnectorRegistry(catalogue.values(), process.env, appUrl.get()));
      },
    },
    {
      provide: COLLECTIONS_SERVICE,
      inject: [INFRASTRUCTURE, LOGGER, APP_URL, PROJECTION, CONNECTORS],
      useFactory: async (infra: Infrastructure, log: Logger, appUrl: AppUrl, projection: CollectionProjection, connectors: () => ConnectorRegistry) => {
        const config = readCollectionsConfig();
        return new CollectionsService({
          repository: new CollectionRepository(infra.store),
          references: await ReferenceRegistry.open(infra.sql),
          projection,
          config,
          connectors,
          urls: {
            providerCallback: () => config.providerCallbackUrl ?? appUrl.get(),
            checkoutReturn: () => config.checkoutReturnUrl ?? appUrl.get(),
          },
          log,
        });
      },
    },
  ],
})
export class CollectionsServiceModule implements OnApplicationBootstrap, OnModuleDestroy {
  private consumer?: RunningConsumer;
  private timerWorker?: TimerWorker;

  constructor(
    @Inject(INFRASTRUCTURE) private readonly infrastructure: Infrastructure,
    @Inject(LOGGER) private readonly log: Logger,
    @Inject(COLLECTIONS_SERVICE) private readonly collections: CollectionsService,
    @Inject(PROJECTION) private readonly projection: CollectionProjection,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { commands, events, sql } = this.infrastructure;
    const collections = this.collections;
    await commands.serve(SERVICES.collections, {
      [COLLECTION_COMMANDS.initialize]: (payload) => collections.initialize(payload as unknown as InitializeCollectionCommand),
      [COLLECTION_COMMANDS.confirm]: (payload) => collections.confirm(payload as unknown as ConfirmCollectionCommand),
      [COLLECTION_COMMANDS.find]: (payload) => collections.find(payload as unknown as FindCollectionQuery),
      [COLLECTION_COMMANDS.current]: (payload) => collections.current(String(payload.internalReference)),
    });
    await events.publish([COLLECTION_STREAM_PREFIX]);
    this.consumer = await events.consume({ group: 'collections-projection', streamPrefixes: [COLLECTION_STREAM_PREFIX] }, (event) => this.projection.apply(event));
    const config = readCollectionsConfig();
    this.timerWorker = new TimerWorker(new CollectionTimers(sql), (timer) => collections.fireTimer(timer), config.timerTickMs, this.log);
    this.timerWorker.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.timerWorker?.stop();
    await this.consumer?.stop();
  }
}
