import { ProviderRequestError, ProviderUnavailableError, type Bill, type BillPayment, type BillPaymentOperations } from '@paygate/connectors';
import {
  COLLECTION_INTEGRATION_EVENTS as COLLECTION_EVENTS,
  CommandRejectedError,
  readCollectionIntegrationEvent,
  walletId,
  type FindServicePaymentQuery,
  type IntegrationEnvelope,
  type PaymentsContract,
  type PrnDetails,
  type PublishedCollectionV1,
  type ResultOf,
  type TopUpWalletCommand,
  type WalletBalancesQuery,
} from '@paygate/contracts';
import {
  type ServicePaymentEvent,
  type WalletEvent,
  afterRecorded,
  isFinal,
  onBillerAnswered,
  onBillerUnreachable,
  onCollectionSettled,
  onPrnHoldRefused,
  onPrnLookedUp,
  onPrnLookupFailed,
  onTimerDue,
  onVerdictRequested,
  recordEligibility,
  refused,
  serviceNameOf,
  type BillerPaymentAnswer,
  type FeeHoldOutcome,
  type PaymentStep,
  type PaymentTimerKind,
  type ProcessContext,
  type ServicePayment,
  type ServicePaymentCommand,
  type ServicePaymentState,
  type WalletCommand,
  type WalletState,
} from '@paygate/payments-domain';
import type { DeciderRuntime } from '@paygate/event-store';
import type { Logger } from '@paygate/logging';
import type { Counter, Metrics } from '@paygate/metrics';
import type { DueTimer, TimerVerdict } from '@paygate/timers';
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

const DONE: TimerVerdict = { done: true };

const isInsufficientFunds = (error: unknown) => error instanceof CommandRejectedError && error.code === 'insufficient_funds';

function prnDetailsOf(bill: Bill): PrnDetails {
  return { prn: bill.prn, status: bill.status, amount: bill.amount, currency: bill.currency, expiresAt: bill.expiresAt, taxpayerName: bill.payerName };
}

function answerOf(payment: BillPayment): BillerPaymentAnswer {
  return payment.status === 'SUCCESSFUL'
    ? { status: 'SUCCESSFUL', billerPaymentId: payment.providerTransactionId, receiptNumber: payment.receiptNumber }
    : { status: 'PENDING' };
}

const waitUntil = (at: string): TimerVerdict => ({ done: false, retryAt: new Date(at) });

/**
 * The service-payments use cases; transport-free orchestration. The rules live in the payments
 * domain: the ServicePayment and wallet ledger deciders say what a payment and a wallet are, the
 * service payment process (service-payment-process.ts) says which step follows what happened.
 * This loads state, asks them, and carries their steps out against the biller and the ledger.
 * Every step is idempotent: a redelivered event or a re-fired timer decides nothing new, and the
 * biller's idempotency key is derived from the internal reference, so a payment call repeated
 * after a crash is the same payment.
 */
export class PaymentsService {
  private readonly now: () => Date;
  private readonly finished: Counter<'outcome'>;

  constructor(private readonly deps: PaymentsServiceDeps) {
    this.now = deps.now ?? (() => new Date());
    this.finished = deps.metrics.counter({
      name: 'paygate_service_payments_finished_total',
      help: 'PRN payments that reached a final phase, by outcome (COMPLETED, FAILED, REJECTED: the PRN was not eligible).',
      labelNames: ['outcome'],
    });
  }

  // ---- the contract ----

  async walletBalances({ merchantId }: WalletBalancesQuery): Promise<ResultOf<PaymentsContract, 'payments.walletBalances'>> {
    return { balances: await this.deps.projection.walletBalances(merchantId) };
  }

  /** The wallet ledger validates the top-up (and refuses it with invalid_request naming each field). */
  async topUp({ merchantId, currency, amount, reference }: TopUpWalletCommand): Promise<ResultOf<PaymentsContract, 'payments.topUp'>> {
    const wallet = { merchantId, currency };
    const { state } = await this.deps.wallets.handle(walletId(wallet), { type: 'TopUp', wallet, reference, amount, at: this.now().toISOString() });
    if (!state) throw new Error('wallet missing after a top-up');
    return { balance: { currency, balance: state.balance, available: state.available } };
  }

  async findServicePayment({ merchantId, internalReference }: FindServicePaymentQuery): Promise<ResultOf<PaymentsContract, 'payments.findServicePayment'>> {
    if (typeof internalReference !== 'string' || internalReference.length === 0) return { servicePayment: null };
    const found = await this.deps.projection.findServicePayment(merchantId, internalReference);
    if (found) return { servicePayment: found };
    // The projection can trail the latest write: the stream has the answer.
    const { state } = await this.deps.payments.load(internalReference);
    return { servicePayment: state && state.opened.merchantId === merchantId ? toServicePaymentSummary(state) : null };
  }

  // ---- the collections context's published events ----

  async handleCollectionEvent(published: IntegrationEnvelope): Promise<void> {
    const event = readCollectionIntegrationEvent(published);
    if (event?.type === COLLECTION_EVENTS.servicePaymentRequested) await this.verdictRequested(event.data.collection);
    else if (event?.type === COLLECTION_EVENTS.settled) await this.collectionSettled(event.data.collection);
  }

  /**
   * A collect-for-payment collection awaits the PRN verdict: ask the biller, open the payment,
   * record the verdict (the decider publishes PrnValidated or PrnRejected). A biller that cannot
   * be reached defers the verdict to the payment's timer, so this event is done with and the
   * consumer goes on with other collections meanwhile.
   */
  private async verdictRequested(collection: PublishedCollectionV1): Promise<void> {
    const ref = collection.internalReference;
    let { state } = await this.deps.payments.load(ref);
    const step = onVerdictRequested(collection, state);
    if (step.type === 'Discard') this.deps.log.error(step.reason, { internal_reference: ref });
    if (step.type !== 'ValidatePrn') return;
    const lookup = await this.lookUpPrn(step.prn);
    const serviceName = serviceNameOf(lookup.reachable ? lookup.bill?.serviceName : undefined, this.deps.config.biller.name);
    state ??= await this.execute(ref, { type: 'Open', collection, prn: step.prn, serviceName, at: this.now().toISOString() });
    if (state?.phase === 'OPENED') await this.recordLookup(state, lookup);
  }

  /** The PRN as the biller has it (null when unknown), or why the biller could not say. */
  private async lookUpPrn(prn: string): Promise<{ reachable: true; bill: Bill | null } | { reachable: false; reason: string }> {
    try {
      const validation = await this.deps.biller().validate(prn);
      return { reachable: true, bill: validation.found ? validation.bill : null };
    } catch (error) {
      if (error instanceof ProviderUnavailableError) return { reachable: false, reason: error.message };
      throw error;
    }
  }

  /** Records what the lookup found (the verdict, with the fee held first when the merchant bears it) or defers it. */
  private async recordLookup(payment: ServicePayment, lookup: Awaited<ReturnType<PaymentsService['lookUpPrn']>>): Promise<TimerVerdict> {
    const context = this.context();
    if (!lookup.reachable) {
      const deferral = onPrnLookupFailed(payment, lookup.reason, context);
      this.deps.log.warn('the biller could not be reached to validate a PRN; asking again later', {
        internal_reference: payment.opened.internalReference,
        attempt: deferral.attempt,
        next_attempt_at: deferral.nextAttemptAt,
      });
      await this.execute(payment.opened.internalReference, deferral);
      return waitUntil(deferral.nextAttemptAt);
    }
    const { verdict, feeHold } = onPrnLookedUp(payment, lookup.bill && prnDetailsOf(lookup.bill), context);
    const feeHoldOutcome: FeeHoldOutcome = feeHold ? await this.hold(feeHold) : 'NOT_NEEDED';
    const after = await this.execute(payment.opened.internalReference, recordEligibility(verdict, feeHoldOutcome, context));
    await this.carryOut(afterRecorded(after, this.context(), { payNow: true }), after, { payFailureToTimer: true });
    return DONE;
  }

  /** The process says what a settlement does: credit the wallet, record it on the payment (which then pays the PRN or releases its holds). */
  private async collectionSettled(collection: PublishedCollectionV1): Promise<void> {
    const ref = collection.internalReference;
    const { credit, record } = onCollectionSettled(collection, this.context());
    if (credit) await this.deps.wallets.handle(walletId(credit.wallet), credit);
    if (!record) return;
    const { state } = await this.deps.payments.load(ref);
    if (!state) {
      this.deps.log.warn('a collect-for-payment collection settled without a service payment', { internal_reference: ref });
      return;
    }
    const { state: after, events } = await this.handle(ref, record);
    await this.carryOut(afterRecorded(after, this.context(), { payNow: events.length > 0 }), after, { payFailureToTimer: true });
  }

  // ---- the payment timer ----

  /** A due payment timer: the process says whether to ask the biller again, pay (again), release holds or stop. */
  async fireTimer(timer: DueTimer<PaymentTimerKind>): Promise<TimerVerdict> {
    const { state } = await this.deps.payments.load(timer.internalReference);
    const step = onTimerDue(state, this.context());
    if (step.type === 'ValidatePrn' && state) {
      const lookup = await this.lookUpPrn(step.prn);
      return this.recordLookup(state, lookup);
    }
    return this.carryOut(step, state, { payFailureToTimer: false });
  }

  // ---- carrying out the process's steps ----

  /**
   * Right after the payment was requested, a failure to pay is the payment timer's to retry
   * (`payFailureToTimer`); a timer's own attempt lets it reach the timer, which fires again.
   */
  private async carryOut(step: PaymentStep, payment: ServicePaymentState, { payFailureToTimer }: { payFailureToTimer: boolean }): Promise<TimerVerdict> {
    switch (step.type) {
      case 'Done':
      case 'ValidatePrn':
        return DONE;
      case 'Wait':
        return waitUntil(step.until);
      case 'Release':
        for (const command of step.holds) await this.deps.wallets.handle(walletId(command.wallet), command);
        return DONE;
      case 'Pay':
        if (!payment) throw new Error(`service payment ${step.request.reference} missing`);
        if (!payFailureToTimer) return this.pay(payment, step);
        return this.pay(payment, step).catch((error: unknown) => {
          this.deps.log.warn('PRN payment not completed now; its timer tries again', { internal_reference: step.request.reference, error });
          return DONE;
        });
    }
  }

  /** Holds the PRN amount (releasing the fee hold in the same append), asks the biller to pay with the payment's key, records what it answered. */
  private async pay(payment: ServicePayment, { hold, request }: Extract<PaymentStep, { type: 'Pay' }>): Promise<TimerVerdict> {
    const ref = request.reference;
    if ((await this.hold(hold)) === 'REFUSED') return this.record(ref, onPrnHoldRefused(this.context()));
    let answer: BillPayment;
    try {
      answer = await this.deps.biller().pay(request);
    } catch (error) {
      if (error instanceof ProviderUnavailableError) return this.billerUnreachable(payment, error.message);
      if (!(error instanceof ProviderRequestError)) throw error;
      // A biller that checks the PRN before the key might refuse a payment it made for this key.
      const made = await this.deps.biller().status(request.idempotencyKey);
      if (made.status === 'NOT_FOUND') return this.record(ref, refused(error.code ?? error.message, this.context()));
      answer = made;
    }
    return this.billerAnswered(payment, answer);
  }

  private async billerAnswered(payment: ServicePayment, answer: BillPayment): Promise<TimerVerdict> {
    const step = onBillerAnswered(payment, answerOf(answer), this.context());
    if (step.type === 'Wait') return waitUntil(step.until);
    await this.deps.wallets.handle(walletId(step.capture.wallet), step.capture);
    return this.record(payment.opened.internalReference, step.record);
  }

  private async billerUnreachable(payment: ServicePayment, reason: string): Promise<TimerVerdict> {
    const ref = payment.opened.internalReference;
    const step = onBillerUnreachable(payment, reason, this.context());
    if (step.type === 'Record') return this.record(ref, step.command);
    const made = await this.deps
      .biller()
      .status(payment.idempotencyKey as string)
      .catch(() => ({ status: 'NOT_FOUND' }) as const);
    if (made.status !== 'NOT_FOUND') return this.billerAnswered(payment, made);
    return this.record(ref, step.giveUp);
  }

  private async record(ref: string, command: ServicePaymentCommand): Promise<TimerVerdict> {
    const after = await this.execute(ref, command);
    return this.carryOut(afterRecorded(after, this.context(), { payNow: false }), after, { payFailureToTimer: false });
  }

  /** Places a hold; the ledger's refusal for want of funds is an answer (REFUSED), not an error. */
  private async hold(command: WalletCommand): Promise<Exclude<FeeHoldOutcome, 'NOT_NEEDED'>> {
    try {
      await this.deps.wallets.handle(walletId(command.wallet), command);
      return 'HELD';
    } catch (error) {
      if (isInsufficientFunds(error)) return 'REFUSED';
      throw error;
    }
  }

  private context(): ProcessContext {
    return { now: this.now().toISOString(), retry: this.deps.config.retry, statusPollMs: this.deps.config.statusPollMs };
  }

  private async execute(internalReference: string, command: ServicePaymentCommand): Promise<ServicePaymentState> {
    return (await this.handle(internalReference, command)).state;
  }

  private async handle(internalReference: string, command: ServicePaymentCommand): ReturnType<ServicePaymentRuntime['handle']> {
    const handled = await this.deps.payments.handle(internalReference, command);
    // A final payment decides nothing more: events that leave it final are its last, counted once.
    if (handled.events.length > 0 && isFinal(handled.state)) {
      this.finished.inc({ outcome: handled.state.phase });
      this.deps.log.info('service payment finished', { internal_reference: internalReference, outcome: handled.state.phase });
    }
    return handled;
  }
}
