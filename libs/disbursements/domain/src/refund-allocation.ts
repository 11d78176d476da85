import { CommandRejectedError } from '@paygate/contracts';
import { formatMoney, isSupportedCurrency } from '@paygate/money';
import { REFUND_ALLOCATION_EVENT_TYPES as EVENTS, type RefundAllocationEvent } from './events';

/**
 * A completed collection's refunds, together: each refund is allocated part of what was collected before its provider
 * is asked, so refunds in flight count, and concurrent refunds (one stream, appended with its expected revision) never
 * return more than the payer paid. A refund its provider refused is released and refundable again.
 */
export interface RefundAllocations {
  internalReference: string;
  merchantId: string;
  currency: string;
  collectedAmount: number;
  /** refund_reference → its amount and whether it is still in flight or refunded. */
  refunds: Readonly<Record<string, { amount: number; refunded: boolean }>>;
}

export type RefundAllocationState = RefundAllocations | null;

/** The completed collection a refund is asked of, as its record reads. */
export interface RefundableCollection {
  internalReference: string;
  merchantId: string;
  currency: string;
  status: string;
  /** What the payer paid (transaction_amount), integer minor units. */
  transactionAmount: number;
}

export type RefundAllocationCommand =
  | {
      type: 'Allocate';
      collection: RefundableCollection;
      refundReference: string;
      /** null: all that is left. */
      requestedAmount: number | null;
      at: string;
    }
  | { type: 'Release'; refundReference: string; at: string }
  | { type: 'MarkRefunded'; refundReference: string; at: string };

/** What is still refundable: collected, less every refund in flight or made. */
export function refundableLeft(state: RefundAllocationState, collection: RefundableCollection): number {
  if (!state) return collection.transactionAmount;
  return state.collectedAmount - Object.values(state.refunds).reduce((sum, refund) => sum + refund.amount, 0);
}

const invalid = (field: string, message: string) =>
  new CommandRejectedError('invalid_request', message, { errors: [{ field, message }] });

const money = (minor: number, currency: string) =>
  isSupportedCurrency(currency) ? formatMoney(minor, currency) : `${minor} minor units of ${currency}`;

export function decideRefundAllocation(
  command: RefundAllocationCommand,
  state: RefundAllocationState,
): RefundAllocationEvent[] {
  switch (command.type) {
    case 'Allocate': {
      const { collection, refundReference, requestedAmount, at } = command;
      if (collection.status !== 'COMPLETED')
        throw invalid(
          'internal_reference',
          `collection ${collection.internalReference} is ${collection.status}: only a COMPLETED collection can be refunded`,
        );
      const existing = state?.refunds[refundReference];
      const left = refundableLeft(state, collection);
      if (existing) {
        // The same refund asked again (a retry): what it was allocated stands.
        if (requestedAmount === null || requestedAmount === existing.amount) return [];
        throw new CommandRejectedError(
          'duplicate_reference',
          `refund_reference ${refundReference} was used for another amount`,
          { refund_reference: refundReference },
        );
      }
      const amount = requestedAmount ?? left;
      if (left === 0) throw invalid('amount', `collection ${collection.internalReference} has nothing left to refund`);
      if (amount > left)
        throw invalid(
          'amount',
          `amount is more than is left to refund of this collection: ${money(left, collection.currency)}`,
        );
      return [
        {
          type: EVENTS.allocated,
          data: {
            internalReference: collection.internalReference,
            merchantId: collection.merchantId,
            currency: collection.currency,
            collectedAmount: state?.collectedAmount ?? collection.transactionAmount,
            refundReference,
            amount,
            allocatedAt: at,
          },
        },
      ];
    }
    case 'Release': {
      const refund = state?.refunds[command.refundReference];
      if (!refund) return [];
      if (refund.refunded) throw new Error(`refund ${command.refundReference} was made and cannot be released`);
      return [{ type: EVENTS.released, data: { refundReference: command.refundReference, releasedAt: command.at } }];
    }
    case 'MarkRefunded': {
      const refund = state?.refunds[command.refundReference];
      if (!refund) throw new Error(`refund ${command.refundReference} has no allocation to mark refunded`);
      return refund.refunded
        ? []
        : [{ type: EVENTS.refunded, data: { refundReference: command.refundReference, refundedAt: command.at } }];
    }
  }
}

export function evolveRefundAllocation(
  state: RefundAllocationState,
  event: RefundAllocationEvent,
): RefundAllocationState {
  switch (event.type) {
    case EVENTS.allocated: {
      const { internalReference, merchantId, currency, collectedAmount, refundReference, amount } = event.data;
      const base = state ?? { internalReference, merchantId, currency, collectedAmount, refunds: {} };
      return { ...base, refunds: { ...base.refunds, [refundReference]: { amount, refunded: false } } };
    }
    case EVENTS.released: {
      if (!state) return state;
      const refunds = { ...state.refunds };
      delete refunds[event.data.refundReference];
      return { ...state, refunds };
    }
    case EVENTS.refunded: {
      const refund = state?.refunds[event.data.refundReference];
      if (!state || !refund) return state;
      return { ...state, refunds: { ...state.refunds, [event.data.refundReference]: { ...refund, refunded: true } } };
    }
  }
}
