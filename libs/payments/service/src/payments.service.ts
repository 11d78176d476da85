import type { BillPaymentOperations } from '@paygate/connectors';
import {
  COLLECTION_INTEGRATION_EVENTS as COLLECTION_EVENTS,
  readCollectionIntegrationEvent,
  walletId,
  type FindServicePaymentQuery,
  type HoldMoneyOutCommand,
  type ReversePayoutCommand,
  type SettleMoneyOutCommand,
  type WalletRef,
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
import {
  moneyOutTransferId,
  payoutHoldId,
  refundHoldId,
  servicePaymentProcess,
  type WalletCommand,
} from '@paygate/payments-domain';
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

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

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

  /** A refund's or payout's hold: refused with insufficient_funds (naming what is available) when it does not fit. */
  holdMoneyOut(command: HoldMoneyOutCommand): Result<'payments.holdMoneyOut'> {
    const { merchantId, currency, kind, reference, amount } = command;
    const holdId = kind === 'REFUND' ? refundHoldId(reference) : payoutHoldId(reference);
    return this.moveWallet({ merchantId, currency }, { type: 'Hold', holdId, amount });
  }

  /** The provider's final word: the held money leaves the wallet (to money_out), or is available again. */
  settleMoneyOut(command: SettleMoneyOutCommand): Result<'payments.settleMoneyOut'> {
    const { merchantId, currency, kind, reference, outcome } = command;
    const holdId = kind === 'REFUND' ? refundHoldId(reference) : payoutHoldId(reference);
    return this.moveWallet(
      { merchantId, currency },
      outcome === 'PAID'
        ? { type: 'CaptureHold', holdId, transferId: moneyOutTransferId(holdId), toAccount: 'money_out' }
        : { type: 'ReleaseHold', holdId },
    );
  }

  reversePayout({ merchantId, currency, reference }: ReversePayoutCommand): Result<'payments.reversePayout'> {
    return this.moveWallet({ merchantId, currency }, { type: 'ReverseMoneyOut', holdId: payoutHoldId(reference) });
  }

  private async moveWallet(
    wallet: WalletRef,
    command: DistributiveOmit<Exclude<WalletCommand, { type: 'TopUp' | 'CreditCollection' }>, 'wallet' | 'at'>,
  ): Promise<{ balance: { currency: string; balance: number; available: number } }> {
    const { state } = await this.deps.wallets.handle(walletId(wallet), {
      ...command,
      wallet,
      at: this.now().toISOString(),
    });
    return { balance: { currency: wallet.currency, balance: state?.balance ?? 0, available: state?.available ?? 0 } };
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
