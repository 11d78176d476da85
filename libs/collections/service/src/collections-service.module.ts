import { Inject, Module, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import {
  COLLECTION_COMMANDS,
  COLLECTION_STREAM_PREFIX,
  SERVICES,
  type ConfirmCollectionCommand,
  type FindCollectionQuery,
  type InitializeCollectionCommand,
} from '@paygate/contracts';
import type { RunningConsumer } from '@paygate/messaging';
import type { Config } from '@paygate/config';
import { APP_URL, CONFIG, INFRASTRUCTURE, LOGGER, type AppUrl, type Infrastructure, type Logger } from '@paygate/platform';
import { CollectionProjection } from './collection-projection';
import { CollectionRepository } from './collection-repository';
import { CollectionTimers } from './collection-timers';
import { CollectionsService, type ProviderConnectors } from './collections.service';
import { collectionsConfig } from './config';
import { COLLECTIONS_SERVICE, ProviderCallbacksController } from './provider-callbacks.controller';
import { createProviderConnectors } from './providers/create-connectors';
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
      inject: [INFRASTRUCTURE, CONFIG],
      useFactory: (infra: Infrastructure, config: Config) => CollectionProjection.open(infra.sql, infra.store, config.collections.statusPollMs),
    },
    {
      provide: COLLECTIONS_SERVICE,
      inject: [INFRASTRUCTURE, LOGGER, APP_URL, PROJECTION, CONFIG],
      useFactory: async (infra: Infrastructure, log: Logger, appUrl: AppUrl, projection: CollectionProjection, appConfig: Config) => {
        const config = collectionsConfig(appConfig);
        let connectors: ProviderConnectors | undefined;
        return new CollectionsService({
          repository: new CollectionRepository(infra.store),
          references: await ReferenceRegistry.open(infra.sql),
          projection,
          config,
          connectors: () => (connectors ??= createProviderConnectors(process.env, appUrl.get())),
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
    @Inject(CONFIG) private readonly config: Config,
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
    this.timerWorker = new TimerWorker(new CollectionTimers(sql), (timer) => collections.fireTimer(timer), this.config.collections.timerTickMs, this.log);
    this.timerWorker.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.timerWorker?.stop();
    await this.consumer?.stop();
  }
}
