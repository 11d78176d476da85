import { ProviderRequestError, ProviderUnavailableError, type Bill, type BillPayment, type BillPaymentOperations } from '@paygate/connectors';
import {
  COLLECTION_INTEGRATION_EVENTS as COLLECTION_EVENTS,
  CommandRejectedError,
  isPrn,
  readCollectionIntegrationEvent,
  walletId,
  type FindServicePaymentQuery,
  type IntegrationEnvelope,
  type PaymentsContract,
  type PrnDetails,
  type PublishedCollectionV1,
  type ResultOf,
  type ServicePaymentEvent,
  type TopUpWalletCommand,
  type WalletBalancesQuery,
  type WalletEvent,
  type WalletRef,
} from '@paygate/contracts';
import type { DeciderRuntime } from '@paygate/event-store';
import type { Logger } from '@paygate/logging';
import type { Counter, Metrics } from '@paygate/metrics';
import { isSupportedCurrency } from '@paygate/money';
import {
  checkPrnEligibility,
  feeHoldId,
  nextPaymentAttemptAt,
  prnHoldId,
  prnTransferId,
  type FeeHoldOutcome,
  type PaymentAttemptOutcome,
  type ServicePayment,
  type ServicePaymentCommand,
  type ServicePaymentPhase,
  type ServicePaymentState,
  type WalletCommand,
  type WalletState,
} from '@paygate/payments-domain';
import type { DueTimer, TimerVerdict } from '@paygate/timers';
import type { PaymentsConfig } from './config';
import { toServicePaymentSummary, type PaymentsProjection, type PaymentTimerKind } from './payments-projection';

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

/** A top-up's ledger transfer: the same reference is the same top-up. */
export const topUpTransferId = (reference: string) => `top-up:${reference}`;

const DONE: TimerVerdict = { done: true };
const FINAL_OUTCOMES = new Set<ServicePaymentPhase>(['COMPLETED', 'FAILED', 'REJECTED']);

const isInsufficientFunds = (error: unknown) => error instanceof CommandRejectedError && error.code === 'insufficient_funds';

function prnDetailsOf(bill: Bill): PrnDetails {
  return { prn: bill.prn, status: bill.status, amount: bill.amount, currency: bill.currency, expiresAt: bill.expiresAt, taxpayerName: bill.payerName };
}

const walletOf = (payment: ServicePayment): WalletRef => ({ merchantId: payment.opened.merchantId, currency: payment.opened.currency });

/**
 * The service-payments use cases; transport-free. The rules live in the deciders (the
 * ServicePayment and the wallet ledger); this wires them to the biller and to the collections
 * context's published events. Every step is idempotent: a redelivered event or a re-fired timer
 * decides nothing new, and the biller's idempotency key is derived from the internal reference,
 * so a payment call repeated after a crash is the same payment.
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

  async topUp({ merchantId, currency, amount, reference }: TopUpWalletCommand): Promise<ResultOf<PaymentsContract, 'payments.topUp'>> {
    const errors: { field: string; message: string }[] = [];
    if (typeof merchantId !== 'string' || merchantId.length === 0) errors.push({ field: 'merchantId', message: 'merchantId is required' });
    if (!isSupportedCurrency(currency)) errors.push({ field: 'currency', message: 'currency must be a supported currency code' });
    if (!Number.isSafeInteger(amount) || amount < 1) errors.push({ field: 'amount', message: 'amount must be a whole number of minor units, at least 1' });
    if (typeof reference !== 'string' || reference.length === 0 || reference.length > 100) errors.push({ field: 'reference', message: 'reference must be 1 to 100 characters' });
    if (errors.length > 0) throw new CommandRejectedError('invalid_request', errors.map((error) => error.message).join('; '), { errors });
    const wallet = { merchantId, currency };
    const { state } = await this.deps.wallets.handle(walletId(wallet), { type: 'TopUp', wallet, transferId: topUpTransferId(reference), amount, at: this.now().toISOString() });
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
    if (event?.type === COLLECTION_EVENTS.servicePaymentRequested) await this.validatePrn(event.data.collection);
    else if (event?.type === COLLECTION_EVENTS.settled) await this.collectionSettled(event.data.collection);
  }

  /**
   * A collect-for-payment collection awaits the PRN verdict: ask the biller, decide eligibility,
   * hold the fee the merchant bears, record the verdict (the decider publishes PrnValidated or
   * PrnRejected). A biller that cannot be reached defers the verdict to the payment's timer, so
   * this event is done with and the consumer goes on with other collections meanwhile.
   */
  private async validatePrn(collection: PublishedCollectionV1): Promise<void> {
    const { internalReference: ref, prn } = collection;
    if (!isPrn(prn)) {
      // The gateway only accepts 1 to 32 digits: anything else is not a request this service made.
      this.deps.log.error('collect-for-payment collection without a valid PRN: no service payment opened', { internal_reference: ref });
      return;
    }
    let { state } = await this.deps.payments.load(ref);
    // A redelivery after the verdict (or after a deferral, which the timer follows up): nothing to do.
    if (state && (state.phase !== 'OPENED' || state.validationAttempts)) return;
    const lookup = await this.lookUpPrn(prn);
    const bill = lookup.reachable ? lookup.bill : null;
    state ??= await this.execute(ref, { type: 'Open', collection, prn, serviceName: bill?.serviceName.trim() || this.deps.config.biller.name, at: this.now().toISOString() });
    if (state?.phase !== 'OPENED') return;
    await (lookup.reachable ? this.recordVerdict(state, lookup.bill) : this.deferValidation(state, lookup.reason));
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

  private async recordVerdict(payment: ServicePayment, bill: Bill | null): Promise<void> {
    const at = this.now().toISOString();
    const verdict = checkPrnEligibility(bill && prnDetailsOf(bill), { currency: payment.opened.currency, amount: payment.opened.requestAmount }, at);
    const feeHold = verdict.eligible ? await this.holdFee(payment, at) : 'NOT_NEEDED';
    const after = await this.execute(payment.opened.internalReference, { type: 'RecordEligibility', verdict, feeHold, at });
    if (after?.phase === 'PAYING') await this.payOrLeaveToTimer(after);
    else await this.releaseHolds(after);
  }

  /**
   * Asked again on the payment retry schedule; past its end, at the longest delay. The
   * collection's own deadline bounds the wait: cancelled, it settles this payment as failed.
   */
  private async deferValidation(payment: ServicePayment, reason: string): Promise<TimerVerdict> {
    const attempt = (payment.validationAttempts ?? 0) + 1;
    const at = this.now().toISOString();
    const nextAttemptAt = nextPaymentAttemptAt(attempt, at, this.deps.config.retry) ?? new Date(Date.parse(at) + this.deps.config.retry.maxDelayMs).toISOString();
    this.deps.log.warn('the biller could not be reached to validate a PRN; asking again later', { internal_reference: payment.opened.internalReference, attempt, next_attempt_at: nextAttemptAt });
    await this.execute(payment.opened.internalReference, { type: 'DeferValidation', attempt, reason, nextAttemptAt, at });
    return { done: false, retryAt: new Date(nextAttemptAt) };
  }

  /** charge_customer=false: the merchant bears the fee, so its wallet holds it until the collection ends. */
  private async holdFee(payment: ServicePayment, at: string): Promise<FeeHoldOutcome> {
    const { internalReference, chargeCustomer, fee } = payment.opened;
    if (chargeCustomer || fee === 0) return 'NOT_NEEDED';
    const wallet = walletOf(payment);
    try {
      await this.deps.wallets.handle(walletId(wallet), { type: 'Hold', wallet, holdId: feeHoldId(internalReference), amount: fee, at });
      return 'HELD';
    } catch (error) {
      if (isInsufficientFunds(error)) return 'REFUSED';
      throw error;
    }
  }

  /**
   * Every completed collection credits the merchant's wallet (once: the transfer id is the
   * collection's). A collect-for-payment one then records the settlement: completed, the PRN is
   * paid; otherwise the decider fails the payment and the fee hold is released.
   */
  private async collectionSettled(collection: PublishedCollectionV1): Promise<void> {
    const { internalReference: ref, status } = collection;
    if (status === 'PENDING') return;
    const at = this.now().toISOString();
    if (status === 'COMPLETED' && collection.totalCredit > 0) {
      const wallet = { merchantId: collection.merchantId, currency: collection.currency };
      await this.deps.wallets.handle(walletId(wallet), { type: 'CreditCollection', wallet, internalReference: ref, totalCredit: collection.totalCredit, fee: collection.fee, at });
    }
    if (collection.prn === undefined) return;
    const { state } = await this.deps.payments.load(ref);
    if (!state) {
      this.deps.log.warn('a collect-for-payment collection settled without a service payment', { internal_reference: ref });
      return;
    }
    const { state: after, events } = await this.handle(ref, { type: 'RecordCollectionSettled', collectionStatus: status, collectionStatusMessage: collection.statusMessage, at });
    // Paid only by the delivery that recorded the settlement; after a crash the payment timer pays.
    if (after?.phase === 'PAYING') {
      if (events.length > 0) await this.payOrLeaveToTimer(after);
    } else {
      await this.releaseHolds(after);
    }
  }

  // ---- paying the PRN ----

  /** A due payment timer: pay (again) while PAYING; the same key makes it the same payment. */
  async fireTimer(timer: DueTimer<PaymentTimerKind>): Promise<TimerVerdict> {
    const { state } = await this.deps.payments.load(timer.internalReference);
    if (!state) return DONE;
    if (state.phase === 'OPENED') return this.validateAgain(state);
    if (state.phase !== 'PAYING') {
      await this.releaseHolds(state);
      return DONE;
    }
    if (state.nextAttemptAt && Date.parse(state.nextAttemptAt) > this.now().getTime()) return { done: false, retryAt: new Date(state.nextAttemptAt) };
    return this.pay(state);
  }

  /** A deferred PRN validation is due: ask the biller again. */
  private async validateAgain(payment: ServicePayment): Promise<TimerVerdict> {
    if (payment.nextAttemptAt && Date.parse(payment.nextAttemptAt) > this.now().getTime()) return { done: false, retryAt: new Date(payment.nextAttemptAt) };
    const lookup = await this.lookUpPrn(payment.opened.prn);
    if (!lookup.reachable) return this.deferValidation(payment, lookup.reason);
    await this.recordVerdict(payment, lookup.bill);
    return DONE;
  }

  /** Right after the payment was requested: a failure here is the payment timer's to retry. */
  private async payOrLeaveToTimer(payment: ServicePayment): Promise<void> {
    await this.pay(payment).catch((error: unknown) => {
      this.deps.log.warn('PRN payment not completed now; its timer tries again', { internal_reference: payment.opened.internalReference, error });
    });
  }

  /**
   * Holds the PRN amount (releasing the fee hold in the same append), asks the biller to pay
   * with the decider's idempotency key and records what it answered.
   */
  private async pay(payment: ServicePayment): Promise<TimerVerdict> {
    const { internalReference: ref, prn, requestAmount: amount, currency } = payment.opened;
    const idempotencyKey = payment.idempotencyKey;
    if (!idempotencyKey) throw new Error(`service payment ${ref} is PAYING without an idempotency key`);
    const wallet = walletOf(payment);
    try {
      await this.deps.wallets.handle(walletId(wallet), { type: 'Hold', wallet, holdId: prnHoldId(ref), amount, replaces: feeHoldId(ref), at: this.now().toISOString() });
    } catch (error) {
      if (!isInsufficientFunds(error)) throw error;
      // Never pay what the wallet does not hold.
      return this.record(payment, { result: 'REFUSED', reason: 'the wallet balance cannot cover the PRN amount' });
    }
    let answer: BillPayment;
    try {
      answer = await this.deps.biller().pay({ prn, amount, currency, idempotencyKey, reference: ref });
    } catch (error) {
      if (error instanceof ProviderUnavailableError) return this.retryLater(payment, error.message);
      if (!(error instanceof ProviderRequestError)) throw error;
      // A biller that checks the PRN before the key might refuse a payment it made for this key.
      const made = await this.deps.biller().status(idempotencyKey);
      if (made.status === 'NOT_FOUND') return this.record(payment, { result: 'REFUSED', reason: error.code ?? error.message });
      answer = made;
    }
    return this.recordAnswer(payment, answer);
  }

  private async recordAnswer(payment: ServicePayment, answer: BillPayment): Promise<TimerVerdict> {
    // Still processed by the biller: asked again (same key) when the timer fires.
    if (answer.status !== 'SUCCESSFUL') return { done: false, retryAt: new Date(this.now().getTime() + this.deps.config.statusPollMs) };
    const ref = payment.opened.internalReference;
    const wallet = walletOf(payment);
    await this.deps.wallets.handle(walletId(wallet), {
      type: 'CaptureHold',
      wallet,
      holdId: prnHoldId(ref),
      transferId: prnTransferId(ref),
      toAccount: 'biller_settlement',
      at: this.now().toISOString(),
    });
    return this.record(payment, { result: 'SUCCEEDED', billerPaymentId: answer.providerTransactionId, receiptNumber: answer.receiptNumber });
  }

  /** The biller could not be reached: try again at the next time of the schedule, or give up. */
  private async retryLater(payment: ServicePayment, reason: string): Promise<TimerVerdict> {
    const ref = payment.opened.internalReference;
    const attempt = payment.attempts + 1;
    const at = this.now().toISOString();
    const nextAttemptAt = nextPaymentAttemptAt(attempt, at, this.deps.config.retry);
    if (nextAttemptAt === null) {
      // An attempt that timed out may still have been accepted: only a biller that knows no payment for the key is given up on.
      const made = await this.deps.biller().status(payment.idempotencyKey as string).catch(() => ({ status: 'NOT_FOUND' }) as const);
      if (made.status !== 'NOT_FOUND') return this.recordAnswer(payment, made);
      const after = await this.execute(ref, { type: 'GiveUp', at });
      await this.releaseHolds(after);
      return DONE;
    }
    return this.record(payment, { result: 'RETRYABLE_FAILURE', attempt, reason, nextAttemptAt }, at);
  }

  private async record(payment: ServicePayment, outcome: PaymentAttemptOutcome, at = this.now().toISOString()): Promise<TimerVerdict> {
    const after = await this.execute(payment.opened.internalReference, { type: 'RecordPaymentAttempt', outcome, at });
    if (after?.phase === 'PAYING') return after.nextAttemptAt ? { done: false, retryAt: new Date(after.nextAttemptAt) } : { done: false, retryAt: new Date(this.now().getTime() + this.deps.config.statusPollMs) };
    await this.releaseHolds(after);
    return DONE;
  }

  /**
   * A payment that ended without paying gives back what its wallet held for it: the fee hold
   * (charge_customer=false) and, once the collection completed, the PRN hold. Releasing a hold
   * that is gone, captured or never placed changes nothing, so this is safe to repeat.
   */
  private async releaseHolds(payment: ServicePaymentState): Promise<void> {
    if (!payment || (payment.phase !== 'FAILED' && payment.phase !== 'REJECTED')) return;
    const ref = payment.opened.internalReference;
    const wallet = walletOf(payment);
    const holds = [...(payment.opened.chargeCustomer || payment.opened.fee === 0 ? [] : [feeHoldId(ref)]), ...(payment.collectionStatus === 'COMPLETED' ? [prnHoldId(ref)] : [])];
    for (const holdId of holds) await this.deps.wallets.handle(walletId(wallet), { type: 'ReleaseHold', wallet, holdId, at: this.now().toISOString() });
  }

  private async execute(internalReference: string, command: ServicePaymentCommand): Promise<ServicePaymentState> {
    return (await this.handle(internalReference, command)).state;
  }

  private async handle(internalReference: string, command: ServicePaymentCommand): ReturnType<ServicePaymentRuntime['handle']> {
    const handled = await this.deps.payments.handle(internalReference, command);
    // A final payment decides nothing more: events that leave it final are its last, counted once.
    if (handled.events.length > 0 && handled.state && FINAL_OUTCOMES.has(handled.state.phase)) {
      this.finished.inc({ outcome: handled.state.phase });
      this.deps.log.info('service payment finished', { internal_reference: internalReference, outcome: handled.state.phase });
    }
    return handled;
  }
}
