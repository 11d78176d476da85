import { Inject, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { Config } from '@paygate/config';
import { connectorRegistryFor, type ConnectorRegistry } from '@paygate/connectors';
import {
  DISBURSEMENTS_PUBLICATION,
  DISBURSEMENTS_SERVICE,
  PAYOUT_STREAM_PREFIX,
  REFUND_STREAM_PREFIX,
} from '@paygate/contracts';
import { moneyOutDecider, payoutDayDecider, refundAllocationDecider } from '@paygate/disbursements-domain';
import { DeciderRuntime } from '@paygate/event-store';
import type { Logger } from '@paygate/logging';
import type { Metrics } from '@paygate/metrics';
import type { RunningConsumer } from '@paygate/messaging';
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
import { TimerWorker } from '@paygate/timers';
import { disbursementsConfig, type DisbursementsConfig } from './config';
import { DisbursementsProjection, MONEY_OUT_TIMERS, type MoneyOutTimerKind } from './disbursements-projection';
import { DisbursementsService } from './disbursements.service';
import { DISBURSEMENT_HANDLERS, FireMoneyOutTimer } from './handlers';
import { moneyOutCallbackPath, MoneyOutCallbacksController } from './money-out-callbacks.controller';
import { moneyOutCalls } from './money-out-calls';
import { finishedMoneyOut, reportPendingMoneyOut } from './money-out-metrics';
import {
  MoneyOutRuns,
  type MoneyOutRuntime,
  type PayoutDayRuntime,
  type RefundAllocationRuntime,
} from './money-out-runs';
import { Payouts } from './payouts.service';

const PROJECTION = Symbol('DisbursementsProjection');
const DISBURSEMENTS_CONFIG = Symbol('DisbursementsConfig');
const MONEY_OUT_PARTS = Symbol('MoneyOutParts');

/**
 * What refunds and payouts share: the provider connectors, the money-out, allocation and payout day streams, the
 * process runs.
 */
interface MoneyOutParts {
  connectors: () => ConnectorRegistry;
  moneyOuts: MoneyOutRuntime;
  allocations: RefundAllocationRuntime;
  payoutDays: PayoutDayRuntime;
  runs: MoneyOutRuns;
}

/**
 * The disbursements service (refunds and payouts), served by the service-payments app beside the wallet: serves the
 * disbursements contract, owns the money-out and refund allocation streams, holds wallet money only through the
 * payments contract, asks providers through the connector port, projects its read model and timers, fires the timers
 * and takes provider callbacks.
 */
@Module({
  controllers: [MoneyOutCallbacksController],
  providers: [
    { provide: DISBURSEMENTS_CONFIG, inject: [CONFIG], useFactory: disbursementsConfig },
    {
      provide: PROJECTION,
      inject: [INFRASTRUCTURE, DISBURSEMENTS_CONFIG],
      useFactory: (infra: Infrastructure, config: DisbursementsConfig) =>
        DisbursementsProjection.open(infra.sql, infra.store, config.statusPollMs),
    },
    {
      provide: MONEY_OUT_PARTS,
      inject: [INFRASTRUCTURE, LOGGER, APP_URL, DISBURSEMENTS_CONFIG, CONFIG, METRICS],
      useFactory: (
        infra: Infrastructure,
        log: Logger,
        appUrl: AppUrl,
        config: DisbursementsConfig,
        appConfig: Config,
        metrics: Metrics,
      ): MoneyOutParts => {
        // Built on first use: the connectors' default base URLs are this process's own, known once it listens.
        let registry: ConnectorRegistry | undefined;
        const connectors = () =>
          (registry ??= connectorRegistryFor(
            appConfig.catalogue.values(),
            appConfig.connectors,
            appUrl.get(),
            metrics,
          ));
        const callbackBase = () => (config.providerCallbackUrl ?? appUrl.get()).replace(/\/+$/, '');
        const moneyOuts = new DeciderRuntime(infra.store, moneyOutDecider, { oneFlowPerStream: true });
        // A collection's refunds, and a merchant's payouts of a day, each share one stream that concurrent requests write.
        const allocations = new DeciderRuntime(infra.store, refundAllocationDecider, { oneCommandAtATime: true });
        const payoutDays = new DeciderRuntime(infra.store, payoutDayDecider, {
          maxAttempts: 50,
          oneCommandAtATime: true,
        });
        const runs = new MoneyOutRuns({
          moneyOuts,
          allocations,
          payoutDays,
          commands: infra.commands,
          call: moneyOutCalls(connectors, (streamId) => `${callbackBase()}${moneyOutCallbackPath(streamId)}`),
          config,
          finished: finishedMoneyOut(metrics),
          log,
          now: () => new Date(),
        });
        return { connectors, moneyOuts, allocations, payoutDays, runs };
      },
    },
    {
      provide: DisbursementsService,
      inject: [INFRASTRUCTURE, LOGGER, PROJECTION, CONFIG, MONEY_OUT_PARTS],
      useFactory: (
        infra: Infrastructure,
        log: Logger,
        projection: DisbursementsProjection,
        appConfig: Config,
        { connectors, moneyOuts, allocations, runs }: MoneyOutParts,
      ) =>
        new DisbursementsService({
          moneyOuts,
          allocations,
          runs,
          projection,
          commands: infra.commands,
          catalogue: appConfig.catalogue,
          connectors,
          livemode: appConfig.mode === 'live',
          log,
        }),
    },
    {
      provide: Payouts,
      inject: [INFRASTRUCTURE, LOGGER, PROJECTION, CONFIG, MONEY_OUT_PARTS],
      useFactory: (
        infra: Infrastructure,
        log: Logger,
        projection: DisbursementsProjection,
        appConfig: Config,
        { connectors, moneyOuts, payoutDays, runs }: MoneyOutParts,
      ) =>
        new Payouts({
          moneyOuts,
          payoutDays,
          runs,
          projection,
          commands: infra.commands,
          catalogue: appConfig.catalogue,
          connectors,
          livemode: appConfig.mode === 'live',
          log,
        }),
    },
    ...DISBURSEMENT_HANDLERS,
  ],
})
export class DisbursementsServiceModule implements OnApplicationBootstrap, OnApplicationShutdown {
  private consumer?: RunningConsumer;
  private timerWorker?: TimerWorker<MoneyOutTimerKind>;
  private stopReporting?: () => void;

  constructor(
    @Inject(INFRASTRUCTURE) private readonly infrastructure: Infrastructure,
    @Inject(LOGGER) private readonly log: Logger,
    @Inject(PROJECTION) private readonly projection: DisbursementsProjection,
    @Inject(DISBURSEMENTS_CONFIG) private readonly config: DisbursementsConfig,
    @Inject(METRICS) private readonly metrics: Metrics,
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { commands, events, sql } = this.infrastructure;
    await commands.serve(DISBURSEMENTS_SERVICE, executeWithCqrs(this.commandBus, this.queryBus));
    await events.publish([REFUND_STREAM_PREFIX, PAYOUT_STREAM_PREFIX], DISBURSEMENTS_PUBLICATION);
    this.consumer = await this.projection.start(events);
    this.timerWorker = new TimerWorker({
      timers: MONEY_OUT_TIMERS,
      sql,
      fire: (timer) => this.commandBus.execute(new FireMoneyOutTimer(timer)),
      tickMs: this.config.timerTickMs,
      log: this.log,
    });
    this.timerWorker.start();
    this.stopReporting = reportPendingMoneyOut(this.metrics, this.projection);
  }

  /** After Nest closed the HTTP server: work stops once no request can start more. */
  async onApplicationShutdown(): Promise<void> {
    this.stopReporting?.();
    await this.timerWorker?.stop();
    await this.consumer?.stop();
  }
}
