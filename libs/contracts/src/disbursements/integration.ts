import type { Static } from '@sinclair/typebox';
import { closedObject, enumOf, eventData, SCHEMA } from '../json-schema';
import {
  UnsupportedEventVersionError,
  type IntegrationEnvelope,
  type IntegrationEventsOf,
  type Publication,
} from '../publication';
import { PAYOUT_STREAM_PREFIX, REFUND_STREAM_PREFIX } from './vocabulary';

/** The disbursements context publishes from its refund and payout streams. */
export const DISBURSEMENTS_PUBLICATION: Publication = {
  context: 'disbursements',
  streamPrefixes: [REFUND_STREAM_PREFIX, PAYOUT_STREAM_PREFIX],
};

export const DISBURSEMENTS_INTEGRATION_EVENTS = {
  /** A refund reached its final state, COMPLETED or FAILED, on its provider's word: refund.completed, refund.failed. */
  refundSettled: 'disbursements.RefundSettled',
  /**
   * A payout reached a state its merchant is told of: COMPLETED, FAILED (the provider's word), REVERSED (the provider
   * took back a completed payout; the wallet is credited back) or CANCELLED (never approved): payout.completed,
   * payout.failed, payout.reversed.
   */
  payoutSettled: 'disbursements.PayoutSettled',
} as const;

const { text, textOrNull, instant, minorUnits, currency } = SCHEMA;

/** A refund as other contexts see it: everything its callback needs. Amounts in integer minor units. */
export const PublishedRefundV1 = closedObject({
  merchantId: text,
  refundReference: text,
  internalReference: text,
  /** The merchant's reference of the collection refunded. */
  merchantReference: text,
  amount: minorUnits,
  currency,
  status: enumOf(['COMPLETED', 'FAILED'] as const),
  /** FAILED: what the provider said. */
  failureReason: textOrNull,
  reason: textOrNull,
  livemode: SCHEMA.boolean,
  createdAt: instant,
  updatedAt: instant,
});
export type PublishedRefundV1 = Static<typeof PublishedRefundV1>;

export const RefundSettledV1 = eventData({ refund: PublishedRefundV1, settledAt: instant });
export type RefundSettledV1 = Static<typeof RefundSettledV1>;

/** A payout as other contexts see it: everything its callback needs. Amounts in integer minor units. */
export const PublishedPayoutV1 = closedObject({
  merchantId: text,
  payoutReference: text,
  amount: minorUnits,
  /** Paygate's fee, paid from the wallet with the amount. */
  fee: minorUnits,
  currency,
  providerCode: text,
  msisdn: text,
  /** The account holder's name as the provider gave it at the name check. */
  recipientName: textOrNull,
  status: enumOf(['COMPLETED', 'FAILED', 'REVERSED', 'CANCELLED'] as const),
  /** FAILED, REVERSED: what the provider said; CANCELLED: why. */
  failureReason: textOrNull,
  livemode: SCHEMA.boolean,
  createdAt: instant,
  updatedAt: instant,
});
export type PublishedPayoutV1 = Static<typeof PublishedPayoutV1>;

export const PayoutSettledV1 = eventData({ payout: PublishedPayoutV1, settledAt: instant });
export type PayoutSettledV1 = Static<typeof PayoutSettledV1>;

export const DISBURSEMENTS_INTEGRATION_SCHEMAS = {
  [DISBURSEMENTS_INTEGRATION_EVENTS.refundSettled]: RefundSettledV1,
  [DISBURSEMENTS_INTEGRATION_EVENTS.payoutSettled]: PayoutSettledV1,
};

export type DisbursementsIntegrationEvent = IntegrationEventsOf<typeof DISBURSEMENTS_INTEGRATION_SCHEMAS>;

export const DISBURSEMENTS_INTEGRATION_VERSION = 1;

const TYPES = new Set<string>(Object.values(DISBURSEMENTS_INTEGRATION_EVENTS));

/** A disbursements integration event at a version this consumer reads; a later version stops the consumer. */
export function readDisbursementsIntegrationEvent(
  event: IntegrationEnvelope,
): DisbursementsIntegrationEvent | undefined {
  if (!TYPES.has(event.type)) return undefined;
  if (event.version !== DISBURSEMENTS_INTEGRATION_VERSION)
    throw new UnsupportedEventVersionError(event.type, event.version, [DISBURSEMENTS_INTEGRATION_VERSION]);
  return event as DisbursementsIntegrationEvent;
}
