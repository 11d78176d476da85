import type { BillPaymentOperations } from '@paygate/connectors';
import {
  COLLECTION_INTEGRATION_EVENTS as COLLECTION_EVENTS,
  readCollectionIntegrationEvent,
  walletId,
  type FindServicePaymentQuery,
  type IntegrationEnvelope,
  type ListServicePaymentsQuery,
  type PaymentsContract,
  type ResultOf,
  type TopUpWalletCommand,
  type WalletBalancesQuery,
  type WalletStatementQuery,
} from '@paygate/contracts';
import type { Logger } from '@paygate/logging';
import type { Metrics } from '@paygate/metrics';
import { servicePaymentProcess } from '@paygate/payments-domain';
import type { DueTimer, TimerVerdict } from '@paygate/timers';
import { billerCalls } from './biller-calls';
import type { PaymentsConfig } from './config';
import { finishedPayments } from './finished-payments';
import { PaymentRuns, type ServicePaymentRuntime, type WalletRuntime } from './payment-runs';
import { toServicePaymentSummary, type PaymentsProjection } from './payments-projection';

export type { ServicePaymentRuntime, WalletRuntime } from './payment-runs';

export interface PaymentsServiceDeps {
  payments: ServicePaymentRuntime;
  wallets: WalletRuntime;
  projection: PaymentsProjection;
  /** The configured biller's operations; built on first use (its default base URL is this process's own). */
  biller: () => BillPaymentOperations;
  config: PaymentsConfig;
  log: Logger;
  metrics: Metrics;
  now?: () => Date;
}

type Result<Name extends keyof PaymentsContract & string> = Promise<ResultOf<PaymentsContract, Name>>;

/**
 * The service-payments use cases. The rules live in the payments domain: the ServicePayment and
 * wallet ledger deciders say what a payment and a wallet are, the service payment process says
 * which step follows what happened; this runs the process (payment-runs.ts) against the streams
 * and the biller's connector (biller-calls.ts). Every step is idempotent, and the biller's
 * idempotency key is derived from the internal reference, so a payment call repeated after a
 * crash is the same payment.
 */
export class PaymentsService {
  private readonly now: () => Date;
  private readonly runs: PaymentRuns;

  constructor(private readonly deps: PaymentsServiceDeps) {
    this.now = deps.now ?? (() => new Date());
    const { retry, statusPollMs, biller } = deps.config;
    const process = servicePaymentProcess({ retry, statusPollMs, billerName: biller.name });
    const changed = finishedPayments(deps.metrics, deps.log);
    this.runs = new PaymentRuns({ ...deps, process, call: billerCalls(deps.biller), changed, now: this.now });
  }

  async walletBalances(query: WalletBalancesQuery): Result<'payments.walletBalances'> {
    return { balances: await this.deps.projection.walletBalances(query.merchantId) };
  }

  walletStatement(query: WalletStatementQuery): Result<'payments.walletStatement'> {
    return this.deps.projection.walletStatement(query);
  }

  /** The wallet ledger validates the top-up (and refuses it with invalid_request naming each field). */
  async topUp(command: TopUpWalletCommand): Result<'payments.topUp'> {
    const { merchantId, currency, amount, reference, operator, reason } = command;
    const wallet = { merchantId, currency };
    const credit = operator !== undefined ? { operator, reason: reason ?? '' } : undefined;
    const topUp = { type: 'TopUp', wallet, reference, amount, credit, at: this.now().toISOString() } as const;
    const { state } = await this.deps.wallets.handle(walletId(wallet), topUp);
    if (!state) throw new Error('wallet missing after a top-up');
    return { balance: { currency, balance: state.balance, available: state.available } };
  }

  listServicePayments(query: ListServicePaymentsQuery): Result<'payments.listServicePayments'> {
    return this.deps.projection.listServicePayments(query);
  }

  async findServicePayment(query: FindServicePaymentQuery): Result<'payments.findServicePayment'> {
    const { merchantId, internalReference } = query;
    if (typeof internalReference !== 'string' || internalReference.length === 0) return { servicePayment: null };
    const found = await this.deps.projection.findServicePayment(merchantId, internalReference);
    if (found) return { servicePayment: found };
    // The projection can trail the latest write: the stream has the answer.
    const { state } = await this.deps.payments.load(internalReference);
    return { servicePayment: state && state.opened.merchantId === merchantId ? toServicePaymentSummary(state) : null };
  }

  /** The collections context's published events: a PRN verdict requested, a collection settled. */
  async handleCollectionEvent(published: IntegrationEnvelope): Promise<void> {
    const event = readCollectionIntegrationEvent(published);
    if (event?.type !== COLLECTION_EVENTS.servicePaymentRequested && event?.type !== COLLECTION_EVENTS.settled) return;
    const { collection } = event.data;
    const type = event.type === COLLECTION_EVENTS.settled ? 'CollectionSettled' : 'VerdictRequested';
    await this.runs.run({ type, collection }, collection.internalReference);
  }

  async fireTimer(timer: DueTimer<string>): Promise<TimerVerdict> {
    const end = await this.runs.run({ type: 'TimerDue' }, timer.internalReference);
    return end.type === 'Done' ? { done: true } : { done: false, retryAt: new Date(end.at) };
  }
}
