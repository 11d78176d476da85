import { Inject, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { Config } from '@paygate/config';
import { connectorRegistryFor, type BillPaymentOperations } from '@paygate/connectors';
import {
  COLLECTIONS_PUBLICATION,
  PAYMENTS_PUBLICATION,
  PAYMENTS_SERVICE,
  SERVICE_PAYMENT_STREAM_PREFIX,
  WALLET_STREAM_PREFIX,
} from '@paygate/contracts';
import { DeciderRuntime } from '@paygate/event-store';
import { integrationEnvelope, type RunningConsumer } from '@paygate/messaging';
import { servicePaymentDecider, walletLedgerDecider, type PaymentTimerKind } from '@paygate/payments-domain';
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
import { paymentsConfig, type PaymentsConfig } from './config';
import { FirePaymentTimer, HandleCollectionEvent, PAYMENT_HANDLERS } from './handlers/payment-handlers';
import { PAYMENT_TIMERS, PaymentsProjection } from './payments-projection';
import { PaymentsService } from './payments.service';
import { reportWalletInvariants } from './wallet-metrics';

/** Wallets whose latest state a payments process keeps (one per merchant and currency in use). */
const WALLETS_KEPT = 1_000;

const PROJECTION = Symbol('PaymentsProjection');
const PAYMENTS_CONFIG = Symbol('PaymentsConfig');

/**
 * The service-payments service: serves the payments contract, owns the service-payment and
 * wallet streams and publishes them, validates and pays the PRNs of collect-for-payment
 * collections from the collections context's published events, credits wallets with completed
 * collections, projects its read models and payment timers, and fires the timers.
 */
@Module({
  providers: [
    { provide: PAYMENTS_CONFIG, inject: [CONFIG], useFactory: paymentsConfig },
    {
      provide: PROJECTION,
      inject: [INFRASTRUCTURE, PAYMENTS_CONFIG],
      useFactory: (infra: Infrastructure, config: PaymentsConfig) =>
        PaymentsProjection.open(infra.sql, infra.store, config.statusPollMs),
    },
    {
      provide: PaymentsService,
      inject: [INFRASTRUCTURE, LOGGER, METRICS, APP_URL, PROJECTION, PAYMENTS_CONFIG, CONFIG],
      useFactory: (
        infra: Infrastructure,
        log: Logger,
        metrics: Metrics,
        appUrl: AppUrl,
        projection: PaymentsProjection,
        config: PaymentsConfig,
        appConfig: Config,
      ) => {
        // Built on first use: the biller's default base URL is this process's own, known once it listens.
        let biller: BillPaymentOperations | undefined;
        return new PaymentsService({
          payments: new DeciderRuntime(infra.store, servicePaymentDecider, { oneFlowPerStream: true }),
          // A wallet stream grows with every collection its merchant settles: kept, it is read from where the last
          // command left it.
          wallets: new DeciderRuntime(infra.store, walletLedgerDecider, {
            cachedStreams: WALLETS_KEPT,
            oneCommandAtATime: true,
          }),
          projection,
          biller: () =>
            (biller ??= connectorRegistryFor([config.biller], appConfig.connectors, appUrl.get(), metrics).get(
              config.biller.code,
              'billPayment',
            ).billPayment),
          config,
          log,
          metrics,
        });
      },
    },
    ...PAYMENT_HANDLERS,
  ],
})
export class PaymentsServiceModule implements OnApplicationBootstrap, OnApplicationShutdown {
  private consumers: RunningConsumer[] = [];
  private timerWorker?: TimerWorker<PaymentTimerKind>;
  private stopReportingWallets?: () => void;

  constructor(
    @Inject(INFRASTRUCTURE) private readonly infrastructure: Infrastructure,
    @Inject(LOGGER) private readonly log: Logger,
    @Inject(METRICS) private readonly metrics: Metrics,
    @Inject(PROJECTION) private readonly projection: PaymentsProjection,
    @Inject(PAYMENTS_CONFIG) private readonly config: PaymentsConfig,
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { commands, events, sql } = this.infrastructure;
    await commands.serve(PAYMENTS_SERVICE, executeWithCqrs(this.commandBus, this.queryBus));
    await events.publish([SERVICE_PAYMENT_STREAM_PREFIX, WALLET_STREAM_PREFIX], PAYMENTS_PUBLICATION);
    this.consumers.push(await this.projection.start(events));
    this.stopReportingWallets = reportWalletInvariants(this.metrics, sql);
    this.consumers.push(
      await events.consume({ group: 'service-payments', publications: [COLLECTIONS_PUBLICATION] }, (event) =>
        this.commandBus.execute(new HandleCollectionEvent(integrationEnvelope(event))),
      ),
    );
    this.timerWorker = new TimerWorker({
      timers: PAYMENT_TIMERS,
      sql,
      fire: (timer) => this.commandBus.execute(new FirePaymentTimer(timer)),
      tickMs: this.config.timerTickMs,
      log: this.log,
    });
    this.timerWorker.start();
  }

  /**
   * Runs after Nest has closed the HTTP server (which waits for requests in flight): work stops once no request can
   * start more.
   */
  async onApplicationShutdown(): Promise<void> {
    this.stopReportingWallets?.();
    await this.timerWorker?.stop();
    for (const consumer of this.consumers) await consumer.stop();
  }
}
