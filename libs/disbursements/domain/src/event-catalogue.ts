import { eventSchemaEntries, type EventSchemaEntry, REFUND_STREAM_PREFIX } from '@paygate/contracts';
import {
  DISBURSEMENTS_EVENT_SCHEMA_VERSION,
  MONEY_OUT_EVENT_SCHEMAS,
  PAYOUT_DAY_EVENT_SCHEMAS,
  REFUND_ALLOCATION_EVENT_SCHEMAS,
} from './events';
import { PAYOUT_DAY_STREAM_PREFIX, REFUND_ALLOCATION_STREAM_PREFIX } from './money-out-decider';

const V = DISBURSEMENTS_EVENT_SCHEMA_VERSION;

/**
 * The refund, payout, refund allocation and payout day domain events at every version written, for `paygate events schema`. A
 * catalogue entry names one stream prefix: the money-out events are listed under refund-, and payout- streams hold
 * the same types.
 */
export const DISBURSEMENTS_EVENT_CATALOGUE: readonly EventSchemaEntry[] = [
  ...eventSchemaEntries(MONEY_OUT_EVENT_SCHEMAS, V, V, 'domain', REFUND_STREAM_PREFIX),
  ...eventSchemaEntries(REFUND_ALLOCATION_EVENT_SCHEMAS, V, V, 'domain', REFUND_ALLOCATION_STREAM_PREFIX),
  ...eventSchemaEntries(PAYOUT_DAY_EVENT_SCHEMAS, V, V, 'domain', PAYOUT_DAY_STREAM_PREFIX),
];
