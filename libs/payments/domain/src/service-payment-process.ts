import { isPrn, type PrnDetails, type PublishedCollectionV1, type WalletRef } from '@paygate/contracts';
import { SERVICE_PAYMENT_EVENT_TYPES as EVENTS, type ServicePaymentEvent, type ServicePaymentOpenedV1 } from './events';
import { checkPrnEligibility, type PrnVerdict } from './eligibility';
import { feeHoldId, prnHoldId, prnTransferId } from './references';
import { nextPaymentAttemptAt, type RetryPolicy } from './retry';
import {
  FINAL_PHASES,
  type FeeHoldOutcome,
  type PaymentAttemptOutcome,
  type ServicePayment,
  type ServicePaymentCommand,
  type ServicePaymentState,
} from './service-payment';
import type { WalletCommand } from './wallet-ledger';

/** `validation`: ask the biller about the PRN again; `payment`: pay the PRN (again) with the payment's idempotency key. */
export type PaymentTimerKind = 'validation' | 'payment';

/** What an event does to the payment's durable timers (the projection applies it in the event's transaction). */
export type PaymentTimerChange = { type: 'Schedule'; kind: PaymentTimerKind; at: string } | { type: 'Cancel'; kinds?: PaymentTimerKind[] };

/**
 * The timer table: a payment request schedules a safety-net payment timer one poll interval
 * later (the payer pays at once; the timer fires only if it died or the biller still processes
 * it), a failed attempt its retry, a deferred validation its next lookup; a confirmed PRN needs no
 * more lookups, and a final event cancels everything. The deterministic idempotency key makes a
 * second fire the same payment.
 */
export function paymentTimerChanges(event: ServicePaymentEvent, statusPollMs: number): PaymentTimerChange[] {
  switch (event.type) {
    case EVENTS.paymentRequested:
      return [{ type: 'Schedule', kind: 'payment', at: new Date(Date.parse(event.data.requestedAt) + statusPollMs).toISOString() }];
    case EVENTS.attemptFailed:
      return [{ type: 'Schedule', kind: 'payment', at: event.data.nextAttemptAt }];
    case EVENTS.prnValidationDeferred:
      return [{ type: 'Schedule', kind: 'validation', at: event.data.nextAttemptAt }];
    case EVENTS.prnConfirmed:
      return [{ type: 'Cancel', kinds: ['validation'] }];
    case EVENTS.completed:
    case EVENTS.failed:
    case EVENTS.prnRejected:
      return [{ type: 'Cancel' }];
    default:
      return [];
  }
}

/**
 * The service payment's process, in the manner of Emmett's workflows: from what happened (the
 * payment's state after a command, the biller's answer, a due timer) to what to do next, as data.
 * The ServicePayment decider says what a payment is; this says which outside step follows:
 * ask the biller about the PRN, hold or release wallet money, pay the biller, try again at a
 * time, or stop. Pure: the service carries the steps out (libs/payments/service).
 */
export interface ProcessContext {
  /** ISO time of the step. */
  now: string;
  retry: RetryPolicy;
  /** How long to wait before asking the biller again about a payment it is still processing. */
  statusPollMs: number;
}

/** What follows a recorded step, or a due timer. */
export type PaymentStep =
  /** Ask again at `until` (the next attempt, or the biller's answer to poll for). */
  | { type: 'Wait'; until: string }
  /** Ask the biller about the PRN (again). */
  | { type: 'ValidatePrn'; prn: string }
  /** Hold the PRN amount (giving back the fee hold in the same append), then pay the biller. */
  | { type: 'Pay'; hold: WalletCommand; request: BillerPaymentRequest }
  /** The payment ended without paying: give back what the wallet held for it. */
  | { type: 'Release'; holds: WalletCommand[] }
  /** Nothing to do now: the payment is finished, or waits for what comes next (the collection settling, its timer). */
  | { type: 'Done' };

export interface BillerPaymentRequest {
  prn: string;
  amount: number;
  currency: string;
  idempotencyKey: string;
  reference: string;
}

/** charge_customer=false with a fee: the merchant bears the fee, so its wallet holds it while the collection runs. */
export const merchantBearsFee = ({ chargeCustomer, fee }: Pick<ServicePaymentOpenedV1, 'chargeCustomer' | 'fee'>): boolean => !chargeCustomer && fee > 0;

/** Final: the decider decides nothing more for it (FINAL_PHASES of service-payment.ts). */
export const isFinal = (payment: ServicePaymentState): payment is ServicePayment => payment !== null && FINAL_PHASES.has(payment.phase);

const walletOf = (payment: ServicePayment): WalletRef => ({ merchantId: payment.opened.merchantId, currency: payment.opened.currency });

const later = (at: string, ms: number) => new Date(Date.parse(at) + ms).toISOString();

// ---- a settled collection ----

export interface SettlementSteps {
  /** Credit the merchant's wallet (once: the transfer id is the collection's). */
  credit: WalletCommand | null;
  /** Record the settlement on the collection's service payment (collect-for-payment only). */
  record: ServicePaymentCommand | null;
}

/**
 * A collection settled. Every completed collection with something to credit credits the
 * merchant's wallet; a collect-for-payment one then records the settlement on its payment, whose
 * decider pays the PRN (completed) or fails the payment (otherwise). A collection still PENDING
 * has not settled.
 */
export function onCollectionSettled(collection: PublishedCollectionV1, { now }: Pick<ProcessContext, 'now'>): SettlementSteps {
  const { internalReference, status, merchantId, currency, totalCredit, fee } = collection;
  if (status === 'PENDING') return { credit: null, record: null };
  const wallet = { merchantId, currency };
  return {
    credit: status === 'COMPLETED' && totalCredit > 0 ? { type: 'CreditCollection', wallet, internalReference, totalCredit, fee, at: now } : null,
    record:
      collection.prn === undefined
        ? null
        : { type: 'RecordCollectionSettled', collectionStatus: status, collectionStatusMessage: collection.statusMessage, at: now },
  };
}

// ---- the PRN verdict ----

export type VerdictRequestStep = { type: 'Discard'; reason: string } | { type: 'AlreadyAsked' } | { type: 'ValidatePrn'; prn: string };

/**
 * A collect-for-payment collection awaits the PRN verdict. Asked once: a redelivery after the
 * verdict, or after a deferral (the timer follows that up), asks nothing. A PRN the gateway could
 * not have accepted (1 to 32 digits) is not a request this service made.
 */
export function onVerdictRequested(collection: PublishedCollectionV1, payment: ServicePaymentState): VerdictRequestStep {
  if (!isPrn(collection.prn)) return { type: 'Discard', reason: 'collect-for-payment collection without a valid PRN: no service payment opened' };
  if (payment && (payment.phase !== 'OPENED' || payment.validationAttempts)) return { type: 'AlreadyAsked' };
  return { type: 'ValidatePrn', prn: collection.prn };
}

/** The payment's name for the service: the biller's, or the configured biller's when the biller did not say. */
export const serviceNameOf = (billerServiceName: string | undefined, configuredName: string) => billerServiceName?.trim() || configuredName;

/**
 * The biller answered the lookup (null: it does not know the PRN). An eligible PRN whose fee the
 * merchant bears needs the fee held before the verdict is recorded; the ledger's answer decides
 * whether the merchant can bear it (recordEligibility).
 */
export function onPrnLookedUp(
  payment: ServicePayment,
  details: PrnDetails | null,
  { now }: ProcessContext,
): { verdict: PrnVerdict; feeHold: WalletCommand | null } {
  const { currency, requestAmount, fee, internalReference } = payment.opened;
  const verdict = checkPrnEligibility(details, { currency, amount: requestAmount }, now);
  const feeHold: WalletCommand | null =
    verdict.eligible && merchantBearsFee(payment.opened)
      ? { type: 'Hold', wallet: walletOf(payment), holdId: feeHoldId(internalReference), amount: fee, at: now }
      : null;
  return { verdict, feeHold };
}

/** The verdict to record: `feeHold` is the ledger's answer, or NOT_NEEDED when no hold was asked. */
export function recordEligibility(verdict: PrnVerdict, feeHold: FeeHoldOutcome, { now }: ProcessContext): ServicePaymentCommand {
  return { type: 'RecordEligibility', verdict, feeHold, at: now };
}

/**
 * The biller could not be reached to validate the PRN: asked again on the payment retry schedule;
 * past its end, at the longest delay. The collection's own deadline bounds the wait: cancelled,
 * it settles this payment as failed.
 */
export function onPrnLookupFailed(
  payment: ServicePayment,
  reason: string,
  { now, retry }: ProcessContext,
): Extract<ServicePaymentCommand, { type: 'DeferValidation' }> {
  const attempt = (payment.validationAttempts ?? 0) + 1;
  const nextAttemptAt = nextPaymentAttemptAt(attempt, now, retry) ?? later(now, retry.maxDelayMs);
  return { type: 'DeferValidation', attempt, reason, nextAttemptAt, at: now };
}

// ---- after a recorded step ----

/**
 * What follows a command recorded on the payment: PAYING pays (when `payNow`: only the delivery
 * that moved it to PAYING pays; after a crash its timer does), or waits for its next attempt or
 * the biller's answer; a payment that ended without paying releases its holds.
 */
export function afterRecorded(payment: ServicePaymentState, context: ProcessContext, { payNow }: { payNow: boolean }): PaymentStep {
  if (!payment) return { type: 'Done' };
  if (payment.phase === 'PAYING') {
    if (payNow) return pay(payment, context);
    return { type: 'Wait', until: payment.nextAttemptAt ?? later(context.now, context.statusPollMs) };
  }
  return isFinal(payment) ? release(payment, context) : { type: 'Done' };
}

/** A due payment timer: ask the biller again, pay again (the same key makes it the same payment), or finish. */
export function onTimerDue(payment: ServicePaymentState, context: ProcessContext): PaymentStep {
  if (!payment) return { type: 'Done' };
  if (payment.phase === 'OPENED' || payment.phase === 'PAYING') {
    if (payment.nextAttemptAt && Date.parse(payment.nextAttemptAt) > Date.parse(context.now)) return { type: 'Wait', until: payment.nextAttemptAt };
    return payment.phase === 'OPENED' ? { type: 'ValidatePrn', prn: payment.opened.prn } : pay(payment, context);
  }
  return isFinal(payment) ? release(payment, context) : { type: 'Done' };
}

function pay(payment: ServicePayment, { now }: ProcessContext): PaymentStep {
  const { internalReference: ref, prn, requestAmount: amount, currency } = payment.opened;
  if (!payment.idempotencyKey) throw new Error(`service payment ${ref} is PAYING without an idempotency key`);
  return {
    type: 'Pay',
    hold: { type: 'Hold', wallet: walletOf(payment), holdId: prnHoldId(ref), amount, replaces: feeHoldId(ref), at: now },
    request: { prn, amount, currency, idempotencyKey: payment.idempotencyKey, reference: ref },
  };
}

function release(payment: ServicePayment, context: ProcessContext): PaymentStep {
  const holds = holdsToRelease(payment, context);
  return holds.length > 0 ? { type: 'Release', holds } : { type: 'Done' };
}

/**
 * What a payment that ended without paying gives back: the fee hold when the merchant bore the
 * fee, and the PRN hold once the collection completed (it is placed only then). Releasing a hold
 * that is gone or never placed changes nothing, so repeating this is safe.
 */
export function holdsToRelease(payment: ServicePayment, { now }: Pick<ProcessContext, 'now'>): WalletCommand[] {
  if (payment.phase !== 'FAILED' && payment.phase !== 'REJECTED') return [];
  const ref = payment.opened.internalReference;
  const holdIds = [...(merchantBearsFee(payment.opened) ? [feeHoldId(ref)] : []), ...(payment.collectionStatus === 'COMPLETED' ? [prnHoldId(ref)] : [])];
  return holdIds.map((holdId) => ({ type: 'ReleaseHold', wallet: walletOf(payment), holdId, at: now }));
}

// ---- the biller's answers to a payment ----

/** What the biller says of a payment made with the payment's key. */
export type BillerPaymentAnswer = { status: 'SUCCESSFUL'; billerPaymentId: string; receiptNumber?: string } | { status: 'PENDING' };

export type PaymentAnswerStep =
  /** Paid: capture the PRN hold, then record the success. */
  | { type: 'Capture'; capture: WalletCommand; record: ServicePaymentCommand }
  /** Still processed by the biller: ask again (same key) at `until`. */
  | { type: 'Wait'; until: string };

export function onBillerAnswered(payment: ServicePayment, answer: BillerPaymentAnswer, { now, statusPollMs }: ProcessContext): PaymentAnswerStep {
  if (answer.status !== 'SUCCESSFUL') return { type: 'Wait', until: later(now, statusPollMs) };
  const ref = payment.opened.internalReference;
  const outcome: PaymentAttemptOutcome = { result: 'SUCCEEDED', billerPaymentId: answer.billerPaymentId, receiptNumber: answer.receiptNumber };
  return {
    type: 'Capture',
    capture: {
      type: 'CaptureHold',
      wallet: walletOf(payment),
      holdId: prnHoldId(ref),
      transferId: prnTransferId(ref),
      toAccount: 'biller_settlement',
      at: now,
    },
    record: { type: 'RecordPaymentAttempt', outcome, at: now },
  };
}

/** The wallet could not hold the PRN amount: never pay what the wallet does not hold. */
export function onPrnHoldRefused(context: ProcessContext): ServicePaymentCommand {
  return refused('the wallet balance cannot cover the PRN amount', context);
}

/** The biller refused the payment for good (and knows no payment for the key). */
export function refused(reason: string, { now }: ProcessContext): ServicePaymentCommand {
  return { type: 'RecordPaymentAttempt', outcome: { result: 'REFUSED', reason }, at: now };
}

export type UnreachableStep =
  /** Record the failed attempt; its timer tries again at the recorded time. */
  | { type: 'Record'; command: ServicePaymentCommand }
  /**
   * The retry schedule is spent. An attempt that timed out may still have been accepted: ask the
   * biller about the key first, and give up only when it knows no payment for it.
   */
  | { type: 'GiveUpUnlessPaid'; giveUp: ServicePaymentCommand };

/** The biller could not be reached, or answered 5xx: try again on the schedule (retry.ts), or give up. */
export function onBillerUnreachable(payment: ServicePayment, reason: string, { now, retry }: ProcessContext): UnreachableStep {
  const attempt = payment.attempts + 1;
  const nextAttemptAt = nextPaymentAttemptAt(attempt, now, retry);
  if (nextAttemptAt === null) return { type: 'GiveUpUnlessPaid', giveUp: { type: 'GiveUp', at: now } };
  return { type: 'Record', command: { type: 'RecordPaymentAttempt', outcome: { result: 'RETRYABLE_FAILURE', attempt, reason, nextAttemptAt }, at: now } };
}
