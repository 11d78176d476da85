import {
  DISBURSEMENTS_INTEGRATION_EVENTS as PUBLISHED,
  DISBURSEMENTS_INTEGRATION_VERSION,
  type PublishedRefundV1,
} from '@paygate/contracts';
import { eventReader, type PublishedEvent, type StreamDecider } from '@paygate/decider';
import {
  DISBURSEMENTS_EVENT_SCHEMA_VERSION,
  MONEY_OUT_EVENT_TYPES,
  REFUND_ALLOCATION_EVENT_TYPES,
  type MoneyOutEvent,
  type RefundAllocationEvent,
} from './events';
import { decideMoneyOut, evolveMoneyOut, type MoneyOut, type MoneyOutCommand, type MoneyOutState } from './money-out';
import {
  decideRefundAllocation,
  evolveRefundAllocation,
  type RefundAllocationCommand,
  type RefundAllocationState,
} from './refund-allocation';

export const REFUND_ALLOCATION_STREAM_PREFIX = 'refundable-';

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

/**
 * The money-out on the shared decider runtime; its id is its stream name (moneyOutStream). A refund publishes
 * disbursements.RefundSettled once, with the event that made it final (final states decide nothing more).
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
    if (!after || after.request.kind !== 'REFUND') return [];
    const published: PublishedEvent[] = [];
    for (const event of events) {
      if (event.type === MONEY_OUT_EVENT_TYPES.completed || event.type === MONEY_OUT_EVENT_TYPES.failed) {
        const status = event.type === MONEY_OUT_EVENT_TYPES.completed ? 'COMPLETED' : 'FAILED';
        const settledAt = event.type === MONEY_OUT_EVENT_TYPES.completed ? event.data.completedAt : event.data.failedAt;
        published.push({
          type: PUBLISHED.refundSettled,
          version: DISBURSEMENTS_INTEGRATION_VERSION,
          data: { refund: toPublishedRefund(after, status), settledAt },
        });
      }
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
