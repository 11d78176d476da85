import type { BillPaymentOperations } from '@paygate/connectors';
import {
  COLLECTION_INTEGRATION_EVENTS as COLLECTION_EVENTS,
  CommandRejectedError,
  readCollectionIntegrationEvent,
  walletId,
  type FindServicePaymentQuery,
  type IntegrationEnvelope,
  type PaymentsContract,
  type ResultOf,
  type TopUpWalletCommand,
  type WalletBalancesQuery,
} from '@paygate/contracts';
import { runProcess, type ProcessEffects } from '@paygate/decider';
import type { DeciderRuntime } from '@paygate/event-store';
import type { Logger } from '@paygate/logging';
import type { Metrics } from '@paygate/metrics';
import {
  servicePaymentProcess,
  type PaymentCall,
  type PaymentCommand,
  type PaymentInput,
  type PaymentProcess,
  type PaymentRun,
  type PaymentTrigger,
  type ServicePaymentCommand,
  type ServicePaymentEvent,
  type ServicePaymentState,
  type WalletCommand,
  type WalletEvent,
  type WalletState,
} from '@paygate/payments-domain';
import type { DueTimer, TimerVerdict } from '@paygate/timers';
import { billerCalls } from './biller-calls';
import { finishedPayments } from './finished-payments';
import type { PaymentsConfig } from './config';
import { toServicePaymentSummary, type PaymentsProjection } from './payments-projection';

export type ServicePaymentRuntime = DeciderRuntime<ServicePaymentCommand, ServicePaymentEvent, ServicePaymentState>;
export type WalletRuntime = DeciderRuntime<WalletCommand, WalletEvent, WalletState>;

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

const isWalletCommand = (command: PaymentCommand): command is WalletCommand => 'wallet' in command;

/**
 * The service-payments use cases. The rules live in the payments domain: the ServicePayment and
 * wallet ledger deciders say what a payment and a wallet are, the service payment process says
 * which step follows what happened; this runs the process with libs/decider's runProcess against
 * the streams and the biller's connector (biller-calls.ts). Every step is idempotent, and the
 * biller's idempotency key is derived from the internal reference, so a payment call repeated
 * after a crash is the same payment.
 */
export class PaymentsService {
  private readonly now: () => Date;
  private readonly process: PaymentProcess;
  private readonly call: ReturnType<typeof billerCalls>;
  private readonly noteFinished: (state: ServicePaymentState) => void;

  constructor(private readonly deps: PaymentsServiceDeps) {
    this.now = deps.now ?? (() => new Date());
    const { retry, statusPollMs, biller } = deps.config;
    this.process = servicePaymentProcess({ retry, statusPollMs, billerName: biller.name });
    this.call = billerCalls(deps.biller);
    this.noteFinished = finishedPayments(deps.metrics, deps.log);
  }

  async walletBalances({
    merchantId,
  }: WalletBalancesQuery): Promise<ResultOf<PaymentsContract, 'payments.walletBalances'>> {
    return { balances: await this.deps.projection.walletBalances(merchantId) };
  }

  /** The wallet ledger validates the top-up (and refuses it with invalid_request naming each field). */
  async topUp({
    merchantId,
    currency,
    amount,
    reference,
  }: TopUpWalletCommand): Promise<ResultOf<PaymentsContract, 'payments.topUp'>> {
    const wallet = { merchantId, currency };
    const { state } = await this.deps.wallets.handle(walletId(wallet), {
      type: 'TopUp',
      wallet,
      reference,
      amount,
      at: this.now().toISOString(),
    });
    if (!state) throw new Error('wallet missing after a top-up');
    return { balance: { currency, balance: state.balance, available: state.available } };
  }

  async findServicePayment({
    merchantId,
    internalReference,
  }: FindServicePaymentQuery): Promise<ResultOf<PaymentsContract, 'payments.findServicePayment'>> {
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
    if (event?.type === COLLECTION_EVENTS.servicePaymentRequested)
      await this.run({ type: 'VerdictRequested', collection: event.data.collection });
    else if (event?.type === COLLECTION_EVENTS.settled)
      await this.run({ type: 'CollectionSettled', collection: event.data.collection });
  }

  async fireTimer(timer: DueTimer<string>): Promise<TimerVerdict> {
    const end = await this.run({ type: 'TimerDue' }, timer.internalReference);
    return end.type === 'Done' ? { done: true } : { done: false, retryAt: new Date(end.at) };
  }

  /** One run of the service payment process for the payment of `internalReference` (the collection's). */
  private async run(
    trigger: PaymentTrigger,
    internalReference = 'collection' in trigger ? trigger.collection.internalReference : '',
  ) {
    const now = () => this.now().toISOString();
    const effects: ProcessEffects<PaymentInput, PaymentRun, PaymentCommand, PaymentCall> = {
      execute: async (command, run) => {
        if (isWalletCommand(command)) {
          try {
            await this.deps.wallets.handle(walletId(command.wallet), command);
          } catch (error) {
            if (!(error instanceof CommandRejectedError)) throw error;
            return {
              state: run,
              input: { type: 'Refused', command: command.type, code: error.code, error },
              refused: true,
            };
          }
          return { state: { ...run, now: now() }, input: { type: 'Executed', command: command.type, changed: true } };
        }
        const handled = await this.deps.payments.handle(internalReference, command);
        if (handled.events.length > 0) this.noteFinished(handled.state);
        return {
          state: { ...run, payment: handled.state, now: now() },
          input: { type: 'Executed', command: command.type, changed: handled.events.length > 0 },
        };
      },
      call: (call) => this.call(call),
      rejection: ({ message }) => new Error(message),
    };
    // Only a collect-for-payment collection has a payment: any other's settlement only credits the wallet.
    const hasPayment = trigger.type !== 'CollectionSettled' || trigger.collection.prn !== undefined;
    const payment = hasPayment ? (await this.deps.payments.load(internalReference)).state : null;
    const { end } = await runProcess(this.process, { type: 'Triggered' }, { trigger, payment, now: now() }, effects);
    if (end.note) this.deps.log.warn(end.note, { internal_reference: internalReference });
    return end;
  }
}
