import {
  CommandRejectedError,
  isPrn,
  type CollectionStatus,
  type PrnRejectionReason,
  type PublishedCollectionV1,
  type ServicePaymentStatus,
} from '@paygate/contracts';
import {
  SERVICE_PAYMENT_EVENT_TYPES as EVENTS,
  type PrnEligibilityConfirmedV1,
  type ServicePaymentCompletedV1,
  type ServicePaymentEvent,
  type ServicePaymentFailedV1,
  type ServicePaymentFailureReason,
  type ServicePaymentOpenedV1,
  type SettledCollectionStatus,
} from './events';
import { FEE_NOT_COVERED, type PrnVerdict } from './eligibility';
import {
  billerReason,
  billerRefusedMessage,
  collectionNotCompletedMessage,
  MESSAGES,
  paymentRetryMessage,
  prnNotEligibleMessage,
  retriesExhaustedMessage,
} from './messages';
import { feeHoldId, paymentIdempotencyKey } from './references';

/**
 * The ServicePayment aggregate: one per collect-for-payment collection, pure decide/evolve.
 * OPENED (awaiting PRN validation) → ELIGIBLE or REJECTED (final); once the collection settles,
 * ELIGIBLE → PAYING (payment requested from the biller) → COMPLETED or FAILED. A final state is
 * never left: every command against one decides nothing, so late and duplicate deliveries
 * (redelivered integration events, timers, biller notifications) are harmless.
 */
export type ServicePaymentPhase = 'OPENED' | 'ELIGIBLE' | 'REJECTED' | 'PAYING' | 'COMPLETED' | 'FAILED';

export const FINAL_PHASES: ReadonlySet<ServicePaymentPhase> = new Set(['REJECTED', 'COMPLETED', 'FAILED']);

export interface ServicePayment {
  opened: ServicePaymentOpenedV1;
  phase: ServicePaymentPhase;
  status: ServicePaymentStatus;
  statusMessage: string;
  /** Set when the wallet holds the fee the merchant bears; released when the collection completes or does not. */
  feeHoldId?: string;
  /** Known once the collection settled (it may settle before the PRN verdict). */
  collectionStatus?: SettledCollectionStatus;
  idempotencyKey?: string;
  /** Failed attempts at the biller so far. */
  attempts: number;
  /** PRN lookups that could not reach the biller so far (OPENED only). */
  validationAttempts?: number;
  nextAttemptAt?: string;
  billerPaymentId?: string;
  receiptNumber?: string;
  rejection?: { reasonCode: PrnRejectionReason; reason: string };
  failureReason?: ServicePaymentFailureReason;
  updatedAt: string;
}

export type ServicePaymentState = ServicePayment | null;

/**
 * What the ledger answered to the fee hold, asked only for an eligible PRN: HELD, REFUSED
 * (insufficient_funds), or NOT_NEEDED (charge_customer=true, or no fee).
 */
export type FeeHoldOutcome = 'HELD' | 'REFUSED' | 'NOT_NEEDED';

export type PaymentAttemptOutcome =
  | { result: 'SUCCEEDED'; billerPaymentId: string; receiptNumber?: string }
  /** The biller could not be reached or answered 5xx; try again at `nextAttemptAt` (nextPaymentAttemptAt). */
  | { result: 'RETRYABLE_FAILURE'; attempt: number; reason: string; nextAttemptAt: string }
  /** The biller refused the payment for good. */
  | { result: 'REFUSED'; reason: string };

export type ServicePaymentCommand =
  /** From collections.CollectionOpened of a collect-for-payment collection. */
  | { type: 'Open'; collection: PublishedCollectionV1; prn: string; serviceName: string; at: string }
  /** The biller could not be reached to validate the PRN; `nextAttemptAt` from nextPaymentAttemptAt. */
  | { type: 'DeferValidation'; attempt: number; reason: string; nextAttemptAt: string; at: string }
  /** `verdict` from checkPrnEligibility; `feeHold` from the wallet ledger (see wallet-ledger.ts). */
  | { type: 'RecordEligibility'; verdict: PrnVerdict; feeHold: FeeHoldOutcome; at: string }
  /** From collections.CollectionSettled. */
  | { type: 'RecordCollectionSettled'; collectionStatus: CollectionStatus; collectionStatusMessage: string; at: string }
  | { type: 'RecordPaymentAttempt'; outcome: PaymentAttemptOutcome; at: string }
  /** The retry schedule is spent (nextPaymentAttemptAt returned null). */
  | { type: 'GiveUp'; at: string };

export function evolveServicePayment(state: ServicePaymentState, event: ServicePaymentEvent): ServicePaymentState {
  if (event.type === EVENTS.opened) {
    return {
      opened: event.data,
      phase: 'OPENED',
      status: 'PENDING',
      statusMessage: MESSAGES.opened,
      attempts: 0,
      updatedAt: event.data.openedAt,
    };
  }
  if (!state) return state;
  switch (event.type) {
    case EVENTS.prnValidationDeferred: {
      const { attempt, nextAttemptAt, deferredAt } = event.data;
      return {
        ...state,
        validationAttempts: attempt,
        nextAttemptAt,
        statusMessage: MESSAGES.validationDeferred,
        updatedAt: deferredAt,
      };
    }
    case EVENTS.prnConfirmed:
      return {
        ...state,
        phase: 'ELIGIBLE',
        feeHoldId: event.data.feeHoldId,
        nextAttemptAt: undefined,
        statusMessage: MESSAGES.prnValidated,
        updatedAt: event.data.validatedAt,
      };
    case EVENTS.prnRejected: {
      const { reasonCode, reason, statusMessage, rejectedAt } = event.data;
      return {
        ...state,
        phase: 'REJECTED',
        status: 'FAILED',
        rejection: { reasonCode, reason },
        nextAttemptAt: undefined,
        statusMessage,
        updatedAt: rejectedAt,
      };
    }
    case EVENTS.collectionSettled:
      return { ...state, collectionStatus: event.data.collectionStatus, updatedAt: event.data.recordedAt };
    case EVENTS.paymentRequested:
      return {
        ...state,
        phase: 'PAYING',
        idempotencyKey: event.data.idempotencyKey,
        statusMessage: MESSAGES.paying,
        updatedAt: event.data.requestedAt,
      };
    case EVENTS.attemptFailed: {
      const { attempt, nextAttemptAt, failedAt } = event.data;
      return {
        ...state,
        attempts: attempt,
        nextAttemptAt,
        statusMessage: paymentRetryMessage(attempt, nextAttemptAt),
        updatedAt: failedAt,
      };
    }
    case EVENTS.completed: {
      const { billerPaymentId, receiptNumber, statusMessage, completedAt } = event.data;
      return {
        ...state,
        phase: 'COMPLETED',
        status: 'COMPLETED',
        billerPaymentId,
        receiptNumber,
        nextAttemptAt: undefined,
        statusMessage,
        updatedAt: completedAt,
      };
    }
    case EVENTS.failed:
      return {
        ...state,
        phase: 'FAILED',
        status: 'FAILED',
        failureReason: event.data.reason,
        nextAttemptAt: undefined,
        statusMessage: event.data.statusMessage,
        updatedAt: event.data.failedAt,
      };
  }
}

export function rebuildServicePayment(events: ServicePaymentEvent[]): ServicePaymentState {
  return events.reduce<ServicePaymentState>(evolveServicePayment, null);
}

export function decideServicePayment(
  command: ServicePaymentCommand,
  state: ServicePaymentState,
): ServicePaymentEvent[] {
  if (command.type === 'Open') {
    // A redelivered CollectionOpened opens nothing new.
    if (state) return [];
    return [{ type: EVENTS.opened, data: openedData(command) }];
  }
  if (!state) throw new CommandRejectedError('not_found', 'service payment not found');
  if (FINAL_PHASES.has(state.phase)) return [];
  switch (command.type) {
    case 'DeferValidation': {
      const { attempt, reason, nextAttemptAt, at } = command;
      // The same attempt recorded twice (a timer fired twice) is one deferral.
      if (state.phase !== 'OPENED' || attempt <= (state.validationAttempts ?? 0)) return [];
      return [
        {
          type: EVENTS.prnValidationDeferred,
          data: { internalReference: state.opened.internalReference, attempt, reason, nextAttemptAt, deferredAt: at },
        },
      ];
    }
    case 'RecordEligibility':
      return state.phase === 'OPENED' ? eligibilityEvents(state, command.verdict, command.feeHold, command.at) : [];
    case 'RecordCollectionSettled':
      return settlementEvents(state, command.collectionStatus, command.collectionStatusMessage, command.at);
    case 'RecordPaymentAttempt':
      return state.phase === 'PAYING' ? attemptEvents(state, command.outcome, command.at) : [];
    case 'GiveUp':
      return state.phase === 'PAYING'
        ? [failed(state, 'RETRIES_EXHAUSTED', retriesExhaustedMessage(state.attempts), command.at)]
        : [];
  }
}

function openedData({
  collection,
  prn,
  serviceName,
  at,
}: Extract<ServicePaymentCommand, { type: 'Open' }>): ServicePaymentOpenedV1 {
  if (!isPrn(prn))
    throw new CommandRejectedError('invalid_request', 'prn must be 1 to 32 digits', {
      errors: [{ field: 'prn', message: 'prn must be 1 to 32 digits' }],
    });
  return {
    id: collection.id,
    merchantId: collection.merchantId,
    merchantReference: collection.merchantReference,
    internalReference: collection.internalReference,
    currency: collection.currency,
    requestAmount: collection.requestAmount,
    transactionAmount: collection.transactionAmount,
    fee: collection.fee,
    totalCredit: collection.totalCredit,
    chargeCustomer: collection.chargeCustomer,
    customerName: collection.customerName,
    prn,
    serviceName,
    livemode: collection.livemode === true,
    openedAt: at,
  };
}

function eligibilityEvents(
  state: ServicePayment,
  given: PrnVerdict,
  feeHold: FeeHoldOutcome,
  at: string,
): ServicePaymentEvent[] {
  const { internalReference, prn, chargeCustomer, fee } = state.opened;
  if (!given.eligible && feeHold === 'HELD')
    throw new Error('a fee hold for an ineligible PRN would never be released: hold the fee only for an eligible PRN');
  if (given.eligible && !chargeCustomer && fee > 0 && feeHold === 'NOT_NEEDED')
    throw new Error('charge_customer=false: the merchant bears the fee, so hold it before recording eligibility');
  const verdict = given.eligible && feeHold === 'REFUSED' ? FEE_NOT_COVERED : given;
  if (!verdict.eligible) {
    const { reasonCode, reason } = verdict;
    return [
      {
        type: EVENTS.prnRejected,
        data: {
          internalReference,
          prn,
          reasonCode,
          reason,
          statusMessage: prnNotEligibleMessage(reason),
          rejectedAt: at,
        },
      },
    ];
  }
  // A hold placed although charge_customer=true is still recorded, so it is released like any other.
  const data: PrnEligibilityConfirmedV1 = { internalReference, prn, validatedAt: at };
  if (feeHold === 'HELD') data.feeHoldId = feeHoldId(internalReference);
  const confirmed: ServicePaymentEvent = { type: EVENTS.prnConfirmed, data };
  // The collection may have completed before the verdict arrived: pay at once.
  return state.collectionStatus === 'COMPLETED' ? [confirmed, requested(state, at)] : [confirmed];
}

function settlementEvents(
  state: ServicePayment,
  collectionStatus: CollectionStatus,
  collectionStatusMessage: string,
  at: string,
): ServicePaymentEvent[] {
  if (collectionStatus === 'PENDING') throw new Error('a PENDING collection has not settled');
  // Recorded once (PAYING implies it was): a redelivered CollectionSettled changes nothing.
  if (state.collectionStatus) return [];
  const { internalReference } = state.opened;
  const recorded: ServicePaymentEvent = {
    type: EVENTS.collectionSettled,
    data: { internalReference, collectionStatus, collectionStatusMessage, recordedAt: at },
  };
  if (collectionStatus !== 'COMPLETED')
    return [recorded, failed(state, 'COLLECTION_NOT_COMPLETED', collectionNotCompletedMessage(collectionStatus), at)];
  return state.phase === 'ELIGIBLE' ? [recorded, requested(state, at)] : [recorded];
}

function attemptEvents(state: ServicePayment, outcome: PaymentAttemptOutcome, at: string): ServicePaymentEvent[] {
  const { internalReference } = state.opened;
  switch (outcome.result) {
    case 'SUCCEEDED': {
      const data: ServicePaymentCompletedV1 = {
        internalReference,
        billerPaymentId: outcome.billerPaymentId,
        statusMessage: MESSAGES.completed,
        completedAt: at,
      };
      // Absent rather than undefined, so the stored event matches its schema.
      if (outcome.receiptNumber) data.receiptNumber = outcome.receiptNumber;
      return [{ type: EVENTS.completed, data }];
    }
    case 'RETRYABLE_FAILURE':
      if (!Number.isInteger(outcome.attempt) || outcome.attempt < 1)
        throw new RangeError(`attempt must be a positive integer, got ${outcome.attempt}`);
      // A redelivered report of an attempt already recorded changes nothing.
      if (outcome.attempt <= state.attempts) return [];
      return [
        {
          type: EVENTS.attemptFailed,
          data: {
            internalReference,
            attempt: outcome.attempt,
            reason: billerReason(outcome.reason),
            nextAttemptAt: outcome.nextAttemptAt,
            failedAt: at,
          },
        },
      ];
    case 'REFUSED':
      return [failed(state, 'BILLER_REFUSED', billerRefusedMessage(outcome.reason), at)];
  }
}

function requested(state: ServicePayment, at: string): ServicePaymentEvent {
  const { internalReference, prn, requestAmount, currency } = state.opened;
  return {
    type: EVENTS.paymentRequested,
    data: {
      internalReference,
      prn,
      amount: requestAmount,
      currency,
      idempotencyKey: paymentIdempotencyKey(internalReference),
      requestedAt: at,
    },
  };
}

function failed(
  state: ServicePayment,
  reason: ServicePaymentFailedV1['reason'],
  statusMessage: string,
  at: string,
): ServicePaymentEvent {
  return {
    type: EVENTS.failed,
    data: {
      internalReference: state.opened.internalReference,
      reason,
      statusMessage,
      attempts: state.attempts,
      failedAt: at,
    },
  };
}
