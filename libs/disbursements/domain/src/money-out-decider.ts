import { eventReader, type StreamDecider } from '@paygate/decider';
import {
  DISBURSEMENTS_EVENT_SCHEMA_VERSION,
  MONEY_OUT_EVENT_TYPES,
  REFUND_ALLOCATION_EVENT_TYPES,
  type MoneyOutEvent,
  type MoneyOutKind,
  type RefundAllocationEvent,
} from './events';
import { decideMoneyOut, evolveMoneyOut, type MoneyOutCommand, type MoneyOutState } from './money-out';
import {
  decideRefundAllocation,
  evolveRefundAllocation,
  type RefundAllocationCommand,
  type RefundAllocationState,
} from './refund-allocation';

export const REFUND_STREAM_PREFIX = 'refund-';
export const PAYOUT_STREAM_PREFIX = 'payout-';
export const REFUND_ALLOCATION_STREAM_PREFIX = 'refundable-';

/** A money-out's stream: the merchant's reference is unique per merchant and kind. */
export const moneyOutStream = (kind: MoneyOutKind, merchantId: string, reference: string) =>
  `${kind === 'REFUND' ? REFUND_STREAM_PREFIX : PAYOUT_STREAM_PREFIX}${merchantId}:${reference}`;

/** The money-out on the shared decider runtime; its id is its stream name (moneyOutStream). */
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
