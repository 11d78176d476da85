import { CommandRejectedError } from '@paygate/contracts';
import { MONEY_OUT_EVENT_TYPES as EVENTS, type MoneyOutEvent, type MoneyOutRequest } from './events';

/**
 * A refund or payout. PENDING from acceptance (its wallet hold placed) until the provider's final word: COMPLETED or
 * FAILED, never left. While PENDING, `pendingReason` says what it waits for: `provider_processing` once the provider
 * registered it, `provider_unconfirmed` while the provider has not said whether it did (a time-out, an ambiguous
 * answer). Nothing but the provider's word makes it FAILED. Once final, the wallet hold is captured or released
 * (`holdSettled`), after which the money-out has nothing more to do.
 */
export type MoneyOutStatus = 'PENDING' | 'COMPLETED' | 'FAILED';
export type PendingReason = 'provider_processing' | 'provider_unconfirmed';

export interface MoneyOut {
  request: MoneyOutRequest;
  status: MoneyOutStatus;
  pendingReason: PendingReason | null;
  /** How many times the request was sent to the provider (always with the same reference). */
  sends: number;
  providerTransactionId: string | null;
  failureReason: string | null;
  needsAttention: boolean;
  holdSettled: boolean;
  updatedAt: string;
}

export type MoneyOutState = MoneyOut | null;

export type MoneyOutCommand =
  | { type: 'Request'; request: MoneyOutRequest }
  | { type: 'RecordSent'; at: string }
  | { type: 'RecordUnconfirmed'; detail: string; at: string }
  | { type: 'RecordCompleted'; providerTransactionId: string; at: string }
  | { type: 'RecordFailed'; reason: string; at: string }
  | { type: 'Flag'; at: string }
  | { type: 'RecordHoldSettled'; at: string };

/** The fields a merchant's request is compared on: the same reference must ask for the same thing. */
const asked = ({
  kind,
  merchantId,
  reference,
  currency,
  requestedAmount,
  providerCode,
  internalReference,
  msisdn,
  reason,
}: MoneyOutRequest) =>
  JSON.stringify([
    kind,
    merchantId,
    reference,
    currency,
    requestedAmount,
    providerCode,
    internalReference,
    msisdn,
    reason,
  ]);

export const sameRequest = (a: MoneyOutRequest, b: MoneyOutRequest) => asked(a) === asked(b);

export function decideMoneyOut(command: MoneyOutCommand, state: MoneyOutState): MoneyOutEvent[] {
  if (command.type === 'Request') {
    if (!state) return [{ type: EVENTS.requested, data: { request: command.request } }];
    if (sameRequest(state.request, command.request)) return [];
    const field = command.request.kind === 'REFUND' ? 'refund_reference' : 'payout_reference';
    throw new CommandRejectedError(
      'duplicate_reference',
      `${field} ${command.request.reference} was used for another request`,
      { [field]: command.request.reference },
    );
  }
  if (!state) throw new CommandRejectedError('not_found', `no money-out to ${command.type}`);
  const pending = state.status === 'PENDING';
  switch (command.type) {
    case 'RecordSent':
      return pending ? [{ type: EVENTS.sent, data: { attempt: state.sends + 1, sentAt: command.at } }] : [];
    case 'RecordUnconfirmed':
      return pending
        ? [{ type: EVENTS.unconfirmed, data: { attempt: state.sends + 1, detail: command.detail, at: command.at } }]
        : [];
    case 'RecordCompleted':
      // The provider's word is final: a second answer (a callback after a status query) changes nothing.
      return pending
        ? [
            {
              type: EVENTS.completed,
              data: { providerTransactionId: command.providerTransactionId, completedAt: command.at },
            },
          ]
        : [];
    case 'RecordFailed':
      return pending ? [{ type: EVENTS.failed, data: { reason: command.reason, failedAt: command.at } }] : [];
    case 'Flag':
      return pending && !state.needsAttention ? [{ type: EVENTS.flagged, data: { flaggedAt: command.at } }] : [];
    case 'RecordHoldSettled':
      if (pending) throw new Error('a money-out hold is settled only after the provider has said');
      return state.holdSettled
        ? []
        : [
            {
              type: EVENTS.holdSettled,
              data: { outcome: state.status === 'COMPLETED' ? 'PAID' : 'NOT_PAID', settledAt: command.at },
            },
          ];
  }
}

export function evolveMoneyOut(state: MoneyOutState, event: MoneyOutEvent): MoneyOutState {
  if (event.type === EVENTS.requested) {
    const { request } = event.data;
    return {
      request,
      status: 'PENDING',
      pendingReason: null,
      sends: 0,
      providerTransactionId: null,
      failureReason: null,
      needsAttention: false,
      holdSettled: false,
      updatedAt: request.requestedAt,
    };
  }
  if (!state) return state;
  switch (event.type) {
    case EVENTS.sent:
      return {
        ...state,
        sends: event.data.attempt,
        pendingReason: 'provider_processing',
        updatedAt: event.data.sentAt,
      };
    case EVENTS.unconfirmed:
      return { ...state, sends: event.data.attempt, pendingReason: 'provider_unconfirmed', updatedAt: event.data.at };
    case EVENTS.completed:
      return {
        ...state,
        status: 'COMPLETED',
        pendingReason: null,
        needsAttention: false,
        providerTransactionId: event.data.providerTransactionId,
        updatedAt: event.data.completedAt,
      };
    case EVENTS.failed:
      return {
        ...state,
        status: 'FAILED',
        pendingReason: null,
        needsAttention: false,
        failureReason: event.data.reason,
        updatedAt: event.data.failedAt,
      };
    case EVENTS.flagged:
      return { ...state, needsAttention: true };
    case EVENTS.holdSettled:
      return { ...state, holdSettled: true };
  }
}
