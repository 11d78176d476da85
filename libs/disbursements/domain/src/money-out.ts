import { CommandRejectedError } from '@paygate/contracts';
import { MONEY_OUT_EVENT_TYPES as EVENTS, type MoneyOutEvent, type MoneyOutRequest } from './events';

/**
 * A refund or payout. PENDING from acceptance (its wallet hold placed) until the provider's final word: COMPLETED or
 * FAILED. While PENDING, `pendingReason` says what it waits for: `provider_processing` once the provider registered
 * it, `provider_unconfirmed` while the provider has not said whether it did (a time-out, an ambiguous answer). Nothing
 * but the provider's word makes it FAILED. Once final, the wallet hold is captured or released (`holdSettled`).
 *
 * A payout above its merchant's approval threshold starts PENDING_APPROVAL (its hold placed, nothing sent): an
 * approval makes it PENDING, and one never approved is CANCELLED (its hold released). A COMPLETED payout the provider
 * later reverses is REVERSED, and the wallet credited back (`reversalCredited`). FAILED, CANCELLED and REVERSED are
 * never left.
 */
export type MoneyOutStatus = 'PENDING_APPROVAL' | 'PENDING' | 'COMPLETED' | 'FAILED' | 'REVERSED' | 'CANCELLED';
export type PendingReason = 'provider_processing' | 'provider_unconfirmed';

/** A payout waiting for (or given) an owner's approval. */
export interface PayoutApproval {
  threshold: number;
  /** The dashboard user who asked for the payout (who may not approve it); null when it came through the API. */
  createdBy: string | null;
  approvedBy: string | null;
}

export interface MoneyOut {
  request: MoneyOutRequest;
  status: MoneyOutStatus;
  pendingReason: PendingReason | null;
  /** How many times the request was sent to the provider (always with the same reference). */
  sends: number;
  providerTransactionId: string | null;
  /** FAILED, REVERSED: what the provider said; CANCELLED: why. */
  failureReason: string | null;
  needsAttention: boolean;
  holdSettled: boolean;
  approval: PayoutApproval | null;
  /** When the provider completed it (a payout is watched for a reversal for a while after). */
  completedAt: string | null;
  reversalCredited: boolean;
  updatedAt: string;
}

export type MoneyOutState = MoneyOut | null;

export type MoneyOutCommand =
  /**
   * `approvalThreshold`: the merchant's, in the payout's minor units (null: none); a payout above it waits for
   * approval. `createdBy`: the dashboard user asking, absent through the API.
   */
  | { type: 'Request'; request: MoneyOutRequest; approvalThreshold?: number | null; createdBy?: string | null }
  | { type: 'Approve'; approverId: string; at: string }
  | { type: 'Cancel'; reason: string; at: string }
  | { type: 'RecordSent'; at: string }
  | { type: 'RecordUnconfirmed'; detail: string; at: string }
  | { type: 'RecordCompleted'; providerTransactionId: string; at: string }
  | { type: 'RecordFailed'; reason: string; at: string }
  | { type: 'RecordReversed'; reason: string; at: string }
  | { type: 'Flag'; at: string }
  | { type: 'RecordHoldSettled'; at: string }
  | { type: 'RecordReversalCredited'; at: string };

/** Whether the hold is captured (PAID) or released once final: only a completed money-out (reversed later or not) paid. */
export const holdOutcomeOf = (moneyOut: MoneyOut): 'PAID' | 'NOT_PAID' =>
  moneyOut.status === 'COMPLETED' || moneyOut.status === 'REVERSED' ? 'PAID' : 'NOT_PAID';

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

function decideRequest(command: Extract<MoneyOutCommand, { type: 'Request' }>, state: MoneyOutState): MoneyOutEvent[] {
  const { request, approvalThreshold, createdBy } = command;
  if (state) {
    if (sameRequest(state.request, request)) return [];
    const field = request.kind === 'REFUND' ? 'refund_reference' : 'payout_reference';
    throw new CommandRejectedError(
      'duplicate_reference',
      `${field} ${request.reference} was used for another request`,
      {
        [field]: request.reference,
      },
    );
  }
  const requested: MoneyOutEvent = { type: EVENTS.requested, data: { request } };
  const aboveThreshold =
    request.kind === 'PAYOUT' && approvalThreshold !== undefined && approvalThreshold !== null
      ? request.amount > approvalThreshold
      : false;
  if (!aboveThreshold) return [requested];
  return [
    requested,
    {
      type: EVENTS.awaitingApproval,
      data: { threshold: approvalThreshold!, createdBy: createdBy ?? null, at: request.requestedAt },
    },
  ];
}

/** An owner's approval: not by the dashboard user who asked for the payout; approving again changes nothing. */
function decideApprove(command: Extract<MoneyOutCommand, { type: 'Approve' }>, state: MoneyOut): MoneyOutEvent[] {
  const reference = state.request.reference;
  if (state.approval?.approvedBy) return [];
  if (state.status !== 'PENDING_APPROVAL')
    throw new CommandRejectedError(
      'not_awaiting_confirmation',
      `payout ${reference} is ${state.status}, not waiting for approval`,
      { payout_reference: reference, status: state.status },
    );
  if (state.approval?.createdBy !== null && state.approval?.createdBy === command.approverId)
    throw new CommandRejectedError('invalid_request', `payout ${reference} must be approved by another owner`, {
      errors: [{ field: 'approver_id', message: 'the owner who asked for a payout cannot approve it' }],
    });
  return [{ type: EVENTS.approved, data: { approvedBy: command.approverId, approvedAt: command.at } }];
}

export function decideMoneyOut(command: MoneyOutCommand, state: MoneyOutState): MoneyOutEvent[] {
  if (command.type === 'Request') return decideRequest(command, state);
  if (!state) throw new CommandRejectedError('not_found', `no money-out to ${command.type}`);
  const pending = state.status === 'PENDING';
  switch (command.type) {
    case 'Approve':
      return decideApprove(command, state);
    case 'Cancel':
      return state.status === 'PENDING_APPROVAL'
        ? [{ type: EVENTS.cancelled, data: { reason: command.reason, cancelledAt: command.at } }]
        : [];
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
    case 'RecordReversed':
      // Only a paid payout can be taken back (a pending one whose completion was not seen yet included); a refund's
      // provider never reverses one.
      return (state.status === 'COMPLETED' || pending) && state.request.kind === 'PAYOUT'
        ? [{ type: EVENTS.reversed, data: { reason: command.reason, reversedAt: command.at } }]
        : [];
    case 'Flag':
      return pending && !state.needsAttention ? [{ type: EVENTS.flagged, data: { flaggedAt: command.at } }] : [];
    case 'RecordHoldSettled':
      if (pending || state.status === 'PENDING_APPROVAL')
        throw new Error('a money-out hold is settled only once it is final');
      return state.holdSettled
        ? []
        : [{ type: EVENTS.holdSettled, data: { outcome: holdOutcomeOf(state), settledAt: command.at } }];
    case 'RecordReversalCredited':
      if (state.status !== 'REVERSED') throw new Error('only a reversed payout is credited back');
      return state.reversalCredited ? [] : [{ type: EVENTS.reversalCredited, data: { creditedAt: command.at } }];
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
      approval: null,
      completedAt: null,
      reversalCredited: false,
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
        completedAt: event.data.completedAt,
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
    case EVENTS.awaitingApproval:
      return {
        ...state,
        status: 'PENDING_APPROVAL',
        approval: { threshold: event.data.threshold, createdBy: event.data.createdBy, approvedBy: null },
      };
    case EVENTS.approved:
      return {
        ...state,
        status: 'PENDING',
        approval: state.approval && { ...state.approval, approvedBy: event.data.approvedBy },
        updatedAt: event.data.approvedAt,
      };
    case EVENTS.cancelled:
      return { ...state, status: 'CANCELLED', failureReason: event.data.reason, updatedAt: event.data.cancelledAt };
    case EVENTS.reversed:
      return { ...state, status: 'REVERSED', failureReason: event.data.reason, updatedAt: event.data.reversedAt };
    case EVENTS.reversalCredited:
      return { ...state, reversalCredited: true };
  }
}
