import {
  CommandRejectedError,
  type CollectionCancellationReason,
  type CollectionStatus,
  type ProviderOutcome,
} from '@paygate/contracts';
import { COLLECTION_EVENT_TYPES as EVENTS, type CollectionEvent, type CollectionInitiatedV1 } from './events';
import { cancellationMessage, failureMessage, MESSAGES } from './messages';

/**
 * The Collection aggregate as two pure functions: `decide` turns a command and the current
 * state into new events (or a rejection), `evolve` folds an event into state. PENDING moves to
 * exactly one of COMPLETED, FAILED or CANCELLED, and a final state is never left: every command
 * against one decides no events.
 */
export type Phase =
  /** Collect-for-payment: waiting for service-payments' verdict on the PRN; nothing reaches the customer. */
  | 'AWAITING_PRN'
  /** Confirm not yet received (with require_confirmation=false, initialize confirms at once). */
  | 'AWAITING_CONFIRMATION'
  /** Confirmed; the prompt or checkout session is being requested from the provider. */
  | 'AWAITING_PROVIDER'
  /** The customer has the prompt or the checkout page. */
  | 'WITH_PROVIDER'
  | 'FINAL';

export interface Collection {
  initiated: CollectionInitiatedV1;
  status: CollectionStatus;
  phase: Phase;
  statusMessage: string;
  providerReference?: string;
  providerExpiresAt?: string;
  paymentUrl?: string;
  transactionAccount?: string;
  /** Set once CANCELLED. */
  cancellationReason?: CollectionCancellationReason;
  updatedAt: string;
}

export type CollectionState = Collection | null;

/** A provider's answer, normalised by its connector (the type lives in contracts, shared with libs/connectors). */
export type { ProviderOutcome };

export type CollectionCommand =
  | { type: 'Initiate'; data: CollectionInitiatedV1 }
  | { type: 'Confirm'; at: string; implicit: boolean; providerExpiresAt: string }
  | { type: 'RecordProviderRequest'; at: string; providerReference: string; paymentUrl?: string }
  | { type: 'RecordProviderOutcome'; at: string; outcome: ProviderOutcome }
  | { type: 'Expire'; at: string; timer: 'confirmation' | 'provider' }
  /** service-payments' verdict on a collect-for-payment PRN. */
  | { type: 'AcceptPrn'; at: string }
  | { type: 'RejectPrn'; at: string; reason: string };

/** A command the state does not allow, with the stable code the merchant API documents. */
export class CollectionRejected extends CommandRejectedError {
  constructor(code: 'not_found' | 'not_awaiting_confirmation' | 'already_exists', message: string) {
    super(code, message);
  }
}

export function evolve(state: CollectionState, event: CollectionEvent): CollectionState {
  if (event.type === EVENTS.initiated) {
    const data = event.data;
    return {
      initiated: data,
      status: 'PENDING',
      phase: data.prn ? 'AWAITING_PRN' : 'AWAITING_CONFIRMATION',
      statusMessage: data.prn
        ? MESSAGES.validatingPrn
        : data.requireConfirmation
          ? MESSAGES.initiatedAwaitingConfirmation
          : MESSAGES.initiatedProcessing,
      transactionAccount: data.msisdn,
      updatedAt: data.initiatedAt,
    };
  }
  if (!state) return state;
  switch (event.type) {
    case EVENTS.confirmed:
      return {
        ...state,
        phase: 'AWAITING_PROVIDER',
        providerExpiresAt: event.data.providerExpiresAt,
        updatedAt: event.data.confirmedAt,
      };
    case EVENTS.pinPromptSent:
      return {
        ...state,
        phase: 'WITH_PROVIDER',
        providerReference: event.data.providerReference,
        statusMessage: MESSAGES.promptSent,
        updatedAt: event.data.sentAt,
      };
    case EVENTS.cardCheckoutOpened:
      return {
        ...state,
        phase: 'WITH_PROVIDER',
        providerReference: event.data.providerReference,
        paymentUrl: event.data.paymentUrl,
        statusMessage: MESSAGES.checkoutOpen,
        updatedAt: event.data.openedAt,
      };
    case EVENTS.completed:
      return {
        ...state,
        phase: 'FINAL',
        status: 'COMPLETED',
        statusMessage: event.data.statusMessage,
        transactionAccount: event.data.transactionAccount,
        updatedAt: event.data.completedAt,
      };
    case EVENTS.failed:
      return {
        ...state,
        phase: 'FINAL',
        status: 'FAILED',
        statusMessage: event.data.statusMessage,
        updatedAt: event.data.failedAt,
      };
    case EVENTS.cancelled:
      return {
        ...state,
        phase: 'FINAL',
        status: 'CANCELLED',
        statusMessage: event.data.statusMessage,
        cancellationReason: event.data.reason,
        updatedAt: event.data.cancelledAt,
      };
    case EVENTS.prnAccepted:
      return {
        ...state,
        phase: 'AWAITING_CONFIRMATION',
        statusMessage: state.initiated.requireConfirmation
          ? MESSAGES.initiatedAwaitingConfirmation
          : MESSAGES.initiatedProcessing,
        updatedAt: event.data.acceptedAt,
      };
  }
}

export function rebuild(events: CollectionEvent[]): CollectionState {
  return events.reduce<CollectionState>(evolve, null);
}

/**
 * The state an initialize acknowledgement described: after CollectionInitiated, or with
 * require_confirmation=false after the prompt or checkout was requested. A retry of the same
 * request replays it, whatever happened since.
 */
export function acknowledgedState(events: CollectionEvent[]): CollectionState {
  let state: CollectionState = null;
  for (const event of events) {
    state = evolve(state, event);
    if (
      state?.initiated.requireConfirmation ||
      event.type === EVENTS.pinPromptSent ||
      event.type === EVENTS.cardCheckoutOpened
    )
      break;
  }
  return state;
}

export function decide(command: CollectionCommand, state: CollectionState): CollectionEvent[] {
  if (command.type === 'Initiate') {
    if (state)
      throw new CollectionRejected('already_exists', `transaction ${command.data.internalReference} already exists`);
    return [{ type: EVENTS.initiated, data: command.data }];
  }
  if (!state) throw new CollectionRejected('not_found', 'transaction not found');
  const { internalReference, transactionMethod: method } = state.initiated;
  // Whatever has happened since, a collection initiated without confirmation never takes one from the merchant.
  if (command.type === 'Confirm' && !command.implicit && !state.initiated.requireConfirmation) {
    throw new CollectionRejected(
      'not_awaiting_confirmation',
      `transaction ${internalReference} was initiated with require_confirmation=false and needs no confirmation`,
    );
  }
  if (state.phase === 'FINAL') {
    if (command.type === 'Confirm') {
      throw new CollectionRejected(
        'not_awaiting_confirmation',
        `transaction ${internalReference} is ${state.status} and cannot be confirmed`,
      );
    }
    return [];
  }
  switch (command.type) {
    case 'AcceptPrn':
      return state.phase === 'AWAITING_PRN'
        ? [{ type: EVENTS.prnAccepted, data: { internalReference, acceptedAt: command.at } }]
        : [];
    case 'RejectPrn':
      if (state.phase !== 'AWAITING_PRN') return [];
      return [
        {
          type: EVENTS.cancelled,
          data: {
            internalReference,
            reason: 'PRN_NOT_ELIGIBLE',
            statusMessage: `${cancellationMessage(method, 'PRN_NOT_ELIGIBLE')}: ${command.reason}`,
            cancelledAt: command.at,
          },
        },
      ];
    case 'Confirm':
      if (state.phase === 'AWAITING_PRN') {
        throw new CollectionRejected(
          'not_awaiting_confirmation',
          `transaction ${internalReference} is waiting for its PRN to be validated; confirm after the transaction.charges callback`,
        );
      }
      if (state.phase !== 'AWAITING_CONFIRMATION') return [];
      if (state.initiated.confirmationExpiresAt && command.at >= state.initiated.confirmationExpiresAt) {
        return [cancelled(internalReference, method, 'CONFIRMATION_TIMEOUT', command.at)];
      }
      return [
        {
          type: EVENTS.confirmed,
          data: {
            internalReference,
            confirmedAt: command.at,
            implicit: command.implicit,
            providerExpiresAt: command.providerExpiresAt,
          },
        },
      ];
    case 'RecordProviderRequest':
      if (state.phase !== 'AWAITING_PROVIDER') return [];
      if (method === 'CARD') {
        if (!command.paymentUrl) throw new Error('a card checkout needs its payment URL');
        return [
          {
            type: EVENTS.cardCheckoutOpened,
            data: {
              internalReference,
              providerReference: command.providerReference,
              paymentUrl: command.paymentUrl,
              openedAt: command.at,
            },
          },
        ];
      }
      return [
        {
          type: EVENTS.pinPromptSent,
          data: { internalReference, providerReference: command.providerReference, sentAt: command.at },
        },
      ];
    case 'RecordProviderOutcome':
      // A result can overtake the append of PinPromptSent, so AWAITING_PROVIDER accepts it too.
      if (state.phase === 'AWAITING_CONFIRMATION' || state.phase === 'AWAITING_PRN') return [];
      return outcomeEvents(state, command.outcome, command.at);
    case 'Expire':
      if (command.timer === 'confirmation') {
        // The same deadline covers a collect-for-payment collection still waiting for its PRN verdict.
        const deadline = state.initiated.confirmationExpiresAt;
        if (!deadline || command.at < deadline) return [];
        if (state.phase === 'AWAITING_PRN')
          return [cancelled(internalReference, method, 'PRN_VALIDATION_TIMEOUT', command.at)];
        return state.phase === 'AWAITING_CONFIRMATION'
          ? [cancelled(internalReference, method, 'CONFIRMATION_TIMEOUT', command.at)]
          : [];
      }
      return state.phase !== 'AWAITING_CONFIRMATION' && state.providerExpiresAt && command.at >= state.providerExpiresAt
        ? [cancelled(internalReference, method, 'PROVIDER_TIMEOUT', command.at)]
        : [];
  }
}

function outcomeEvents(state: Collection, outcome: ProviderOutcome, at: string): CollectionEvent[] {
  const { internalReference, transactionMethod: method } = state.initiated;
  switch (outcome.status) {
    case 'PENDING':
      return [];
    case 'SUCCESSFUL':
      return [
        {
          type: EVENTS.completed,
          data: {
            internalReference,
            providerTransactionId: outcome.providerTransactionId,
            transactionAccount: outcome.maskedAccount ?? state.transactionAccount ?? 'unknown',
            statusMessage: MESSAGES.completed,
            completedAt: at,
          },
        },
      ];
    case 'FAILED': {
      const reason = outcome.reason === 'OTHER' ? 'PROVIDER_ERROR' : outcome.reason;
      return [
        {
          type: EVENTS.failed,
          data: { internalReference, reason, statusMessage: failureMessage(method, reason), failedAt: at },
        },
      ];
    }
    case 'CANCELLED':
      return [
        cancelled(
          internalReference,
          method,
          outcome.reason === 'EXPIRED' ? 'PROVIDER_TIMEOUT' : 'CUSTOMER_DECLINED',
          at,
        ),
      ];
  }
}

function cancelled(
  internalReference: string,
  method: Collection['initiated']['transactionMethod'],
  reason: Exclude<CollectionCancellationReason, 'PRN_NOT_ELIGIBLE'>,
  at: string,
): CollectionEvent {
  return {
    type: EVENTS.cancelled,
    data: { internalReference, reason, statusMessage: cancellationMessage(method, reason), cancelledAt: at },
  };
}
