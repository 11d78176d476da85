import {
  isPrn,
  type BillPaymentRequest,
  type PrnDetails,
  type PublishedCollectionV1,
  type WalletRef,
} from '@paygate/contracts';
import type { Process, ProcessOutput } from '@paygate/decider';
import { SERVICE_PAYMENT_EVENT_TYPES as EVENTS, type ServicePaymentEvent, type ServicePaymentOpenedV1 } from './events';
import { checkPrnEligibility, type PrnVerdict } from './eligibility';
import { feeHoldId, prnHoldId, prnTransferId } from './references';
import { nextPaymentAttemptAt, type RetryPolicy } from './retry';
import {
  FINAL_PHASES,
  type PaymentAttemptOutcome,
  type ServicePayment,
  type ServicePaymentCommand,
  type ServicePaymentState,
} from './service-payment';
import type { WalletCommand } from './wallet-ledger';

/**
 * `validation`: ask the biller about the PRN again; `payment`: pay the PRN (again) with the payment's idempotency key.
 */
export type PaymentTimerKind = 'validation' | 'payment';

/** What an event does to the payment's durable timers (the projection applies it in the event's transaction). */
export type PaymentTimerChange =
  { type: 'Schedule'; kind: PaymentTimerKind; at: string } | { type: 'Cancel'; kinds?: PaymentTimerKind[] };

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
      return [
        {
          type: 'Schedule',
          kind: 'payment',
          at: new Date(Date.parse(event.data.requestedAt) + statusPollMs).toISOString(),
        },
      ];
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
 * The service payment's process, in the shape of Emmett's workflows: from what happened (a
 * collection's published event, a due timer, the biller's or the ledger's answer) to what to do
 * next, as outputs that libs/decider's runProcess carries out. The ServicePayment decider says
 * what a payment is; this says which outside step follows: ask the biller about the PRN, hold or
 * release wallet money, pay the biller, ask it what became of a payment, try again at a time,
 * or stop. Pure: the service only connects it to the streams and the biller's connector.
 */
export interface PaymentPolicy {
  retry: RetryPolicy;
  /** How long to wait before asking the biller again about a payment it is still processing. */
  statusPollMs: number;
  /** The configured biller's name: the service name when the biller does not give one. */
  billerName: string;
}

/** What starts a run. */
export type PaymentTrigger =
  /** collections asks for the verdict on a collect-for-payment collection's PRN. */
  | { type: 'VerdictRequested'; collection: PublishedCollectionV1 }
  /** A collection reached a final status (any collection: a completed one credits the wallet). */
  | { type: 'CollectionSettled'; collection: PublishedCollectionV1 }
  | { type: 'TimerDue' };

/** The biller calls a payment makes. */
export type PaymentCall =
  | { type: 'LookUpPrn'; prn: string }
  | { type: 'PayBiller'; request: BillPaymentRequest }
  /** What became of the payment made with this key, if any. */
  | { type: 'AskBiller'; idempotencyKey: string };

/** What the biller says of a payment made with the payment's key. */
export type BillerPaymentAnswer =
  { status: 'SUCCESSFUL'; billerPaymentId: string; receiptNumber?: string } | { status: 'PENDING' };

export type PaymentCommand = ServicePaymentCommand | WalletCommand;

/** The process's inputs: what happened last in a run. */
export type PaymentInput =
  | { type: 'Triggered' }
  /** A command was decided; `changed` when it recorded events (a redelivery records none). */
  | { type: 'Executed'; command: PaymentCommand['type']; changed: boolean }
  /** The ledger or the payment refused a command. */
  | { type: 'Refused'; command: PaymentCommand['type']; code: string; error: unknown }
  /** The biller's view of the PRN; null when it does not know it. */
  | { type: 'PrnLookedUp'; details: PrnDetails | null; serviceName?: string }
  | { type: 'BillerAnswered'; answer: BillerPaymentAnswer }
  /** The biller refused the payment for good. */
  | { type: 'BillerRefused'; reason: string }
  /** The biller knows no payment made with the key. */
  | { type: 'BillerKnowsNoPayment' }
  /** The biller could not be reached, or answered 5xx. */
  | { type: 'BillerUnreachable'; call: PaymentCall['type']; reason: string; error: unknown };

/**
 * What a run decides against: what started it, the payment as the last command left it, the time, and what the biller
 * said in this run.
 */
export interface PaymentRun {
  trigger: PaymentTrigger;
  payment: ServicePaymentState;
  /** ISO 8601. */
  now: string;
  lookup?: { details: PrnDetails | null; serviceName?: string } | { unreachable: string };
  /** The biller's refusal, while it is asked whether it made the payment after all. */
  refusal?: string;
}

export type PaymentOutput = ProcessOutput<PaymentCommand, PaymentCall>;
export type PaymentProcess = Process<PaymentInput, PaymentRun, PaymentCommand, PaymentCall>;

/** charge_customer=false with a fee: the merchant bears the fee, so its wallet holds it while the collection runs. */
export const merchantBearsFee = ({
  chargeCustomer,
  fee,
}: Pick<ServicePaymentOpenedV1, 'chargeCustomer' | 'fee'>): boolean => !chargeCustomer && fee > 0;

/** Final: the decider decides nothing more for it (FINAL_PHASES of service-payment.ts). */
export const isFinal = (payment: ServicePaymentState): payment is ServicePayment =>
  payment !== null && FINAL_PHASES.has(payment.phase);

/** The payment's name for the service: the biller's, or the configured biller's when the biller did not say. */
export const serviceNameOf = (billerServiceName: string | undefined, configuredName: string) =>
  billerServiceName?.trim() || configuredName;

const walletOf = (payment: ServicePayment): WalletRef => ({
  merchantId: payment.opened.merchantId,
  currency: payment.opened.currency,
});
const later = (at: string, ms: number) => new Date(Date.parse(at) + ms).toISOString();
const DONE: PaymentOutput = { type: 'Done' };
const execute = (command: PaymentCommand): PaymentOutput => ({ type: 'Execute', command });

export function servicePaymentProcess(policy: PaymentPolicy): PaymentProcess {
  return {
    evolve(run, input) {
      if (input.type === 'PrnLookedUp')
        return { ...run, lookup: { details: input.details, serviceName: input.serviceName } };
      if (input.type === 'BillerUnreachable' && input.call === 'LookUpPrn')
        return { ...run, lookup: { unreachable: input.reason } };
      if (input.type === 'BillerRefused') return { ...run, refusal: input.reason };
      return run;
    },
    decide: (input, run) => decide(input, run, policy),
  };
}

function decide(input: PaymentInput, run: PaymentRun, policy: PaymentPolicy): PaymentOutput[] {
  const { payment, now } = run;
  switch (input.type) {
    case 'Triggered':
      return triggered(run);
    case 'PrnLookedUp':
    case 'BillerUnreachable':
      if (input.type === 'BillerUnreachable' && input.call !== 'LookUpPrn')
        return billerUnreachable(input, run, policy);
      // A payment is opened once the biller was asked, so it carries the biller's name for the service.
      if (!payment) return run.trigger.type === 'VerdictRequested' ? [execute(openPayment(run, policy))] : [DONE];
      return recordLookup(payment, run, policy);
    case 'BillerRefused':
      return [askBiller(payment)];
    case 'BillerKnowsNoPayment':
      return [execute(run.refusal === undefined ? { type: 'GiveUp', at: now } : refused(run.refusal, now))];
    case 'BillerAnswered':
      return billerAnswered(payment, input.answer, run, policy);
    case 'Refused':
      return holdRefused(input, run);
    case 'Executed':
      return executed(input, run, policy);
  }
}

function triggered(run: PaymentRun): PaymentOutput[] {
  const { trigger, payment, now } = run;
  switch (trigger.type) {
    case 'VerdictRequested':
      return verdictRequested(trigger.collection, payment);
    case 'CollectionSettled':
      return collectionSettled(trigger.collection, payment, now);
    case 'TimerDue':
      return timerDue(run);
  }
}

// ---- the PRN verdict ----

/**
 * A collect-for-payment collection awaits the PRN verdict. Asked once: a redelivery after the
 * verdict, or after a deferral (the timer follows that up), asks nothing. A PRN the gateway could
 * not have accepted (1 to 32 digits) is not a request this service made.
 */
function verdictRequested(collection: PublishedCollectionV1, payment: ServicePaymentState): PaymentOutput[] {
  if (!isPrn(collection.prn))
    return [{ type: 'Done', note: 'collect-for-payment collection without a valid PRN: no service payment opened' }];
  if (payment && (payment.phase !== 'OPENED' || payment.validationAttempts)) return [DONE];
  return [{ type: 'Call', call: { type: 'LookUpPrn', prn: collection.prn } }];
}

function openPayment(run: PaymentRun, policy: PaymentPolicy): ServicePaymentCommand {
  const collection = (run.trigger as Extract<PaymentTrigger, { type: 'VerdictRequested' }>).collection;
  const serviceName = run.lookup && 'details' in run.lookup ? run.lookup.serviceName : undefined;
  return {
    type: 'Open',
    collection,
    prn: collection.prn as string,
    serviceName: serviceNameOf(serviceName, policy.billerName),
    at: run.now,
  };
}

/**
 * What the lookup found, recorded: the verdict, with the fee held first when the merchant bears
 * it for an eligible PRN (the ledger's answer decides whether it can). A biller that could not be
 * reached defers the verdict on the payment retry schedule (past its end, at the longest delay);
 * the collection's own deadline bounds the wait.
 */
function recordLookup(payment: ServicePayment, run: PaymentRun, { retry }: PaymentPolicy): PaymentOutput[] {
  if (payment.phase !== 'OPENED' || !run.lookup) return [DONE];
  if ('unreachable' in run.lookup) {
    const attempt = (payment.validationAttempts ?? 0) + 1;
    const nextAttemptAt = nextPaymentAttemptAt(attempt, run.now, retry) ?? later(run.now, retry.maxDelayMs);
    return [execute({ type: 'DeferValidation', attempt, reason: run.lookup.unreachable, nextAttemptAt, at: run.now })];
  }
  const verdict = verdictOf(payment, run);
  if (verdict.eligible && merchantBearsFee(payment.opened)) {
    const { internalReference, fee } = payment.opened;
    return [
      execute({
        type: 'Hold',
        wallet: walletOf(payment),
        holdId: feeHoldId(internalReference),
        amount: fee,
        at: run.now,
      }),
    ];
  }
  return [execute({ type: 'RecordEligibility', verdict, feeHold: 'NOT_NEEDED', at: run.now })];
}

function verdictOf(payment: ServicePayment, run: PaymentRun): PrnVerdict {
  const details = run.lookup && 'details' in run.lookup ? run.lookup.details : null;
  return checkPrnEligibility(
    details,
    { currency: payment.opened.currency, amount: payment.opened.requestAmount },
    run.now,
  );
}

// ---- a settled collection ----

/**
 * Every completed collection with something to credit credits the merchant's wallet (once: the
 * transfer id is the collection's); a collect-for-payment one then records the settlement on its
 * payment, whose decider pays the PRN (completed) or fails the payment. PENDING has not settled.
 */
function collectionSettled(
  collection: PublishedCollectionV1,
  payment: ServicePaymentState,
  now: string,
): PaymentOutput[] {
  const { internalReference, status, merchantId, currency, totalCredit, fee } = collection;
  if (status === 'PENDING') return [DONE];
  const wallet = { merchantId, currency };
  const credit: PaymentOutput[] =
    status === 'COMPLETED' && totalCredit > 0
      ? [execute({ type: 'CreditCollection', wallet, internalReference, totalCredit, fee, at: now })]
      : [];
  if (collection.prn === undefined) return [...credit, DONE];
  if (!payment)
    return [...credit, { type: 'Done', note: 'a collect-for-payment collection settled without a service payment' }];
  return [
    ...credit,
    execute({
      type: 'RecordCollectionSettled',
      collectionStatus: status,
      collectionStatusMessage: collection.statusMessage,
      at: now,
    }),
  ];
}

// ---- after a recorded step ----

function executed(
  input: Extract<PaymentInput, { type: 'Executed' }>,
  run: PaymentRun,
  policy: PaymentPolicy,
): PaymentOutput[] {
  const { payment, now } = run;
  if (!payment) return [DONE];
  switch (input.command) {
    case 'Open':
      return recordLookup(payment, run, policy);
    case 'Hold':
      // The fee is held: the verdict is recorded. The PRN amount is held: the biller is paid.
      if (payment.phase === 'OPENED')
        return [execute({ type: 'RecordEligibility', verdict: verdictOf(payment, run), feeHold: 'HELD', at: now })];
      return payment.phase === 'PAYING'
        ? [{ type: 'Call', call: { type: 'PayBiller', request: billerRequest(payment) } }]
        : [DONE];
    case 'DeferValidation':
      return [
        {
          type: 'RetryAt',
          at: payment.nextAttemptAt ?? later(now, policy.statusPollMs),
          note: 'the biller could not be reached to validate a PRN; asking again later',
        },
      ];
    case 'CreditCollection':
    case 'CaptureHold':
    case 'ReleaseHold':
    case 'TopUp':
      return [DONE];
    default:
      // Only the command that moved the payment to PAYING pays; after a crash, or a redelivery, its timer does.
      return afterRecorded(
        payment,
        run,
        policy,
        input.command === 'RecordEligibility' || (input.command === 'RecordCollectionSettled' && input.changed),
      );
  }
}

/**
 * PAYING pays (when `payNow`) or waits for its next attempt or the biller's answer; a payment that ended without paying
 * releases its holds.
 */
function afterRecorded(
  payment: ServicePayment,
  run: PaymentRun,
  policy: PaymentPolicy,
  payNow: boolean,
): PaymentOutput[] {
  if (payment.phase === 'PAYING')
    return payNow
      ? pay(payment, run.now)
      : [{ type: 'RetryAt', at: payment.nextAttemptAt ?? later(run.now, policy.statusPollMs) }];
  return isFinal(payment) ? release(payment, run.now) : [DONE];
}

// ---- the payment timer ----

/**
 * A due payment timer: ask the biller about the PRN again, pay again (the same key makes it the same payment), or
 * finish.
 */
function timerDue({ payment, now }: PaymentRun): PaymentOutput[] {
  if (!payment) return [DONE];
  if (payment.phase === 'OPENED' || payment.phase === 'PAYING') {
    if (payment.nextAttemptAt && Date.parse(payment.nextAttemptAt) > Date.parse(now))
      return [{ type: 'RetryAt', at: payment.nextAttemptAt }];
    return payment.phase === 'OPENED'
      ? [{ type: 'Call', call: { type: 'LookUpPrn', prn: payment.opened.prn } }]
      : pay(payment, now);
  }
  return isFinal(payment) ? release(payment, now) : [DONE];
}

// ---- paying ----

/**
 * Holds the PRN amount (giving back the fee hold in the same append); the hold's outcome decides whether the biller is
 * paid.
 */
function pay(payment: ServicePayment, now: string): PaymentOutput[] {
  const { internalReference: ref, requestAmount: amount } = payment.opened;
  return [
    execute({
      type: 'Hold',
      wallet: walletOf(payment),
      holdId: prnHoldId(ref),
      amount,
      replaces: feeHoldId(ref),
      at: now,
    }),
  ];
}

function billerRequest(payment: ServicePayment): BillPaymentRequest {
  const { internalReference: reference, prn, requestAmount: amount, currency } = payment.opened;
  if (!payment.idempotencyKey) throw new Error(`service payment ${reference} is PAYING without an idempotency key`);
  return { prn, amount, currency, idempotencyKey: payment.idempotencyKey, reference };
}

const askBiller = (payment: ServicePaymentState): PaymentOutput =>
  payment?.idempotencyKey
    ? { type: 'Call', call: { type: 'AskBiller', idempotencyKey: payment.idempotencyKey } }
    : DONE;

/** The ledger refused a hold for want of funds: an answer, not an error. Never pay what the wallet does not hold. */
function holdRefused(input: Extract<PaymentInput, { type: 'Refused' }>, run: PaymentRun): PaymentOutput[] {
  const { payment, now } = run;
  if (input.command !== 'Hold' || input.code !== 'insufficient_funds' || !payment)
    return [{ type: 'Fail', error: input.error }];
  if (payment.phase === 'OPENED')
    return [execute({ type: 'RecordEligibility', verdict: verdictOf(payment, run), feeHold: 'REFUSED', at: now })];
  return [execute(refused('the wallet balance cannot cover the PRN amount', now))];
}

/**
 * Paid: capture the PRN hold, then record the success. Still processed by the biller: ask again (same key) a poll
 * interval later.
 */
function billerAnswered(
  payment: ServicePaymentState,
  answer: BillerPaymentAnswer,
  { now }: PaymentRun,
  { statusPollMs }: PaymentPolicy,
): PaymentOutput[] {
  if (!payment) return [DONE];
  if (answer.status !== 'SUCCESSFUL') return [{ type: 'RetryAt', at: later(now, statusPollMs) }];
  const ref = payment.opened.internalReference;
  const outcome: PaymentAttemptOutcome = {
    result: 'SUCCEEDED',
    billerPaymentId: answer.billerPaymentId,
    receiptNumber: answer.receiptNumber,
  };
  const capture: WalletCommand = {
    type: 'CaptureHold',
    wallet: walletOf(payment),
    holdId: prnHoldId(ref),
    transferId: prnTransferId(ref),
    toAccount: 'biller_settlement',
    at: now,
  };
  return [execute(capture), execute({ type: 'RecordPaymentAttempt', outcome, at: now })];
}

/**
 * The biller could not be reached, or answered 5xx. Paying: try again on the schedule (retry.ts);
 * once it is spent, ask the biller about the key first (an attempt that timed out may have been
 * accepted) and give up only when it knows no payment for it, or cannot say. Asking after a
 * refusal: the run fails and whoever started it tries again (a timer fires again; an event's
 * payment is its timer's to retry).
 */
function billerUnreachable(
  input: Extract<PaymentInput, { type: 'BillerUnreachable' }>,
  run: PaymentRun,
  { retry }: PaymentPolicy,
): PaymentOutput[] {
  const { payment, now } = run;
  if (!payment) return [DONE];
  if (input.call === 'AskBiller') {
    if (run.refusal === undefined) return [execute({ type: 'GiveUp', at: now })];
    return run.trigger.type === 'TimerDue'
      ? [{ type: 'Fail', error: input.error }]
      : [{ type: 'Done', note: 'PRN payment not completed now; its timer tries again' }];
  }
  const attempt = payment.attempts + 1;
  const nextAttemptAt = nextPaymentAttemptAt(attempt, now, retry);
  if (nextAttemptAt === null) return [askBiller(payment)];
  return [
    execute({
      type: 'RecordPaymentAttempt',
      outcome: { result: 'RETRYABLE_FAILURE', attempt, reason: input.reason, nextAttemptAt },
      at: now,
    }),
  ];
}

/** The biller refused the payment for good (and knows no payment for the key). */
const refused = (reason: string, now: string): ServicePaymentCommand => ({
  type: 'RecordPaymentAttempt',
  outcome: { result: 'REFUSED', reason },
  at: now,
});

function release(payment: ServicePayment, now: string): PaymentOutput[] {
  return [...holdsToRelease(payment, { now }).map(execute), DONE];
}

/**
 * What a payment that ended without paying gives back: the fee hold when the merchant bore the
 * fee, and the PRN hold once the collection completed (it is placed only then). Releasing a hold
 * that is gone or never placed changes nothing, so repeating this is safe.
 */
export function holdsToRelease(payment: ServicePayment, { now }: { now: string }): WalletCommand[] {
  if (payment.phase !== 'FAILED' && payment.phase !== 'REJECTED') return [];
  const ref = payment.opened.internalReference;
  const holdIds = [
    ...(merchantBearsFee(payment.opened) ? [feeHoldId(ref)] : []),
    ...(payment.collectionStatus === 'COMPLETED' ? [prnHoldId(ref)] : []),
  ];
  return holdIds.map((holdId) => ({ type: 'ReleaseHold', wallet: walletOf(payment), holdId, at: now }));
}
