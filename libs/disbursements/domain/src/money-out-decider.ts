import {
  DISBURSEMENTS_INTEGRATION_EVENTS as PUBLISHED,
  DISBURSEMENTS_INTEGRATION_VERSION,
  type PublishedPayoutV1,
  type PublishedRefundV1,
} from '@paygate/contracts';
import { eventReader, type PublishedEvent, type StreamDecider } from '@paygate/decider';
import {
  DISBURSEMENTS_EVENT_SCHEMA_VERSION,
  MONEY_OUT_EVENT_TYPES,
  PAYOUT_DAY_EVENT_TYPES,
  REFUND_ALLOCATION_EVENT_TYPES,
  type MoneyOutEvent,
  type PayoutDayEvent,
  type RefundAllocationEvent,
} from './events';
import { decideMoneyOut, evolveMoneyOut, type MoneyOut, type MoneyOutCommand, type MoneyOutState } from './money-out';
import { decidePayoutDay, evolvePayoutDay, type PayoutDayCommand, type PayoutDayState } from './payout-day';
import {
  decideRefundAllocation,
  evolveRefundAllocation,
  type RefundAllocationCommand,
  type RefundAllocationState,
} from './refund-allocation';

export const REFUND_ALLOCATION_STREAM_PREFIX = 'refundable-';
/** Not `payout-`: a day's count is no money-out, and the money-out streams are what that prefix publishes. */
export const PAYOUT_DAY_STREAM_PREFIX = 'payoutday-';

/** What other contexts learn of a refund once it is final. */
export function toPublishedRefund(refund: MoneyOut, status: 'COMPLETED' | 'FAILED'): PublishedRefundV1 {
  const { request } = refund;
  return {
    merchantId: request.merchantId,
    refundReference: request.reference,
    internalReference: request.internalReference ?? '',
    merchantReference: request.merchantReference ?? '',
    amount: request.amount,
    currency: request.currency,
    status,
    failureReason: refund.failureReason,
    reason: request.reason,
    livemode: request.livemode,
    createdAt: request.requestedAt,
    updatedAt: refund.updatedAt,
  };
}

type PayoutSettledStatus = PublishedPayoutV1['status'];

/** What other contexts learn of a payout once it reached a state its merchant is told of. */
export function toPublishedPayout(payout: MoneyOut, status: PayoutSettledStatus): PublishedPayoutV1 {
  const { request } = payout;
  return {
    merchantId: request.merchantId,
    payoutReference: request.reference,
    amount: request.amount,
    fee: request.fee,
    currency: request.currency,
    providerCode: request.providerCode,
    msisdn: request.msisdn ?? '',
    recipientName: request.recipientName,
    status,
    failureReason: status === 'COMPLETED' ? null : payout.failureReason,
    livemode: request.livemode,
    createdAt: request.requestedAt,
    updatedAt: payout.updatedAt,
  };
}

/** The events that settle a money-out as its merchant is told: its published status and when. */
function settledBy(event: MoneyOutEvent): { status: PayoutSettledStatus; at: string } | undefined {
  switch (event.type) {
    case MONEY_OUT_EVENT_TYPES.completed:
      return { status: 'COMPLETED', at: event.data.completedAt };
    case MONEY_OUT_EVENT_TYPES.failed:
      return { status: 'FAILED', at: event.data.failedAt };
    case MONEY_OUT_EVENT_TYPES.reversed:
      return { status: 'REVERSED', at: event.data.reversedAt };
    case MONEY_OUT_EVENT_TYPES.cancelled:
      return { status: 'CANCELLED', at: event.data.cancelledAt };
    default:
      return undefined;
  }
}

/**
 * The money-out on the shared decider runtime; its id is its stream name (moneyOutStream). A refund publishes
 * disbursements.RefundSettled once, with the event that made it final; a payout publishes disbursements.PayoutSettled
 * with each event that settles it as its merchant is told (COMPLETED, then perhaps REVERSED; FAILED; CANCELLED). A
 * state is entered once, so each is published once.
 */
export const moneyOutDecider: StreamDecider<MoneyOutCommand, MoneyOutEvent, MoneyOutState> = {
  decide: decideMoneyOut,
  evolve: evolveMoneyOut,
  initialState: null,
  streamName: (id) => id,
  schemaVersion: DISBURSEMENTS_EVENT_SCHEMA_VERSION,
  read: eventReader<MoneyOutEvent>({
    types: Object.values(MONEY_OUT_EVENT_TYPES),
    currentVersion: DISBURSEMENTS_EVENT_SCHEMA_VERSION,
  }),
  publish(events, after) {
    if (!after) return [];
    const published: PublishedEvent[] = [];
    for (const event of events) {
      const settled = settledBy(event);
      if (!settled) continue;
      const { status, at: settledAt } = settled;
      if (after.request.kind === 'PAYOUT')
        published.push({
          type: PUBLISHED.payoutSettled,
          version: DISBURSEMENTS_INTEGRATION_VERSION,
          data: { payout: toPublishedPayout(after, status), settledAt },
        });
      else if (status === 'COMPLETED' || status === 'FAILED')
        published.push({
          type: PUBLISHED.refundSettled,
          version: DISBURSEMENTS_INTEGRATION_VERSION,
          data: { refund: toPublishedRefund(after, status), settledAt },
        });
    }
    return published;
  },
};

/** A collection's refund allocations: id the collection's internal_reference. */
export const refundAllocationDecider: StreamDecider<
  RefundAllocationCommand,
  RefundAllocationEvent,
  RefundAllocationState
> = {
  decide: decideRefundAllocation,
  evolve: evolveRefundAllocation,
  initialState: null,
  streamName: (internalReference) => `${REFUND_ALLOCATION_STREAM_PREFIX}${internalReference}`,
  schemaVersion: DISBURSEMENTS_EVENT_SCHEMA_VERSION,
  read: eventReader<RefundAllocationEvent>({
    types: Object.values(REFUND_ALLOCATION_EVENT_TYPES),
    currentVersion: DISBURSEMENTS_EVENT_SCHEMA_VERSION,
  }),
};

/** A merchant's payouts of one currency and day: id `<merchantId>:<currency>:<YYYY-MM-DD>`. */
export const payoutDayDecider: StreamDecider<PayoutDayCommand, PayoutDayEvent, PayoutDayState> = {
  decide: decidePayoutDay,
  evolve: evolvePayoutDay,
  initialState: null,
  streamName: (id) => `${PAYOUT_DAY_STREAM_PREFIX}${id}`,
  schemaVersion: DISBURSEMENTS_EVENT_SCHEMA_VERSION,
  read: eventReader<PayoutDayEvent>({
    types: Object.values(PAYOUT_DAY_EVENT_TYPES),
    currentVersion: DISBURSEMENTS_EVENT_SCHEMA_VERSION,
  }),
};

/** The id of the payout day a payout asked at `requestedAt` counts in. */
export const payoutDayId = (merchantId: string, currency: string, requestedAt: string) =>
  `${merchantId}:${currency}:${requestedAt.slice(0, 10)}`;
