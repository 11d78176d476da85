import {
  COLLECTION_CANCELLATION_REASONS,
  eventData,
  enumOf,
  SCHEMA,
  TRANSACTION_METHODS,
  type EventsOf,
} from '@paygate/contracts';
import { Type, type Static } from '@sinclair/typebox';

/**
 * Domain events of a collection, stream `collection-<internal_reference>`: the collections
 * context's own; other contexts see a collection only through its integration events
 * (libs/contracts). Every event carries `metadata.schemaVersion`; a new incompatible shape gets a
 * new version and both are kept here so analysts can replay old streams. Amounts are integer
 * minor units of `currency`. No secret and no full card number ever appears in these payloads.
 * Each event's data is declared once (docs/adr/0002-event-schemas.md): the declaration is the
 * JSON Schema `paygate events schema` prints and the specs check every decided event against,
 * and `Static<>` of it is the TypeScript type.
 */
export const COLLECTION_EVENT_TYPES = {
  initiated: 'CollectionInitiated',
  confirmed: 'CollectionConfirmed',
  pinPromptSent: 'PinPromptSent',
  cardCheckoutOpened: 'CardCheckoutOpened',
  completed: 'CollectionCompleted',
  failed: 'CollectionFailed',
  cancelled: 'CollectionCancelled',
  /** Collect-for-payment: service-payments found the PRN eligible; the collection may proceed. */
  prnAccepted: 'PrnAccepted',
} as const;

const { text, instant, minorUnits, currency, id, boolean, prn } = SCHEMA;

export const CollectionInitiatedV1 = eventData({
  id,
  merchantId: text,
  merchantReference: text,
  internalReference: text,
  transactionMethod: enumOf(TRANSACTION_METHODS),
  providerCode: text,
  institutionName: text,
  currency,
  requestAmount: minorUnits,
  transactionAmount: minorUnits,
  fee: minorUnits,
  totalCredit: minorUnits,
  chargeCustomer: boolean,
  requireConfirmation: boolean,
  msisdn: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
  customerName: text,
  customerEmail: Type.Optional(text),
  description: Type.Optional(Type.String()),
  redirectUrl: Type.Optional(text),
  /** Collect-for-payment: the PRN to pay from the collected funds; the collection waits for its verdict. */
  prn: Type.Optional(prn),
  /** SHA-256 of the normalised request: a retry with the same body replays, another body conflicts. */
  requestHash: Type.String({ pattern: '^[0-9a-f]{64}$' }),
  initiatedAt: instant,
  /** Unconfirmed after this instant → CANCELLED (absent when require_confirmation=false). */
  confirmationExpiresAt: Type.Optional(instant),
  /** Opened by a live deployment (MODE=live); absent on collections opened before MODE existed, which are test data. */
  livemode: Type.Optional(boolean),
});
export type CollectionInitiatedV1 = Static<typeof CollectionInitiatedV1>;

export const CollectionConfirmedV1 = eventData({
  internalReference: text,
  confirmedAt: instant,
  /** True when require_confirmation=false made initialize confirm it. */
  implicit: boolean,
  /** No provider result by this instant → CANCELLED (prompt or checkout time-out). */
  providerExpiresAt: instant,
});
export type CollectionConfirmedV1 = Static<typeof CollectionConfirmedV1>;

export const PinPromptSentV1 = eventData({
  internalReference: text,
  /** The X-Reference-Id of the provider's requesttopay. */
  providerReference: text,
  sentAt: instant,
});
export type PinPromptSentV1 = Static<typeof PinPromptSentV1>;

export const CardCheckoutOpenedV1 = eventData({
  internalReference: text,
  providerReference: text,
  paymentUrl: text,
  openedAt: instant,
});
export type CardCheckoutOpenedV1 = Static<typeof CardCheckoutOpenedV1>;

export const CollectionCompletedV1 = eventData({
  internalReference: text,
  providerTransactionId: text,
  /** The msisdn, or a masked card such as 424242******4242. */
  transactionAccount: text,
  statusMessage: text,
  completedAt: instant,
});
export type CollectionCompletedV1 = Static<typeof CollectionCompletedV1>;

export const COLLECTION_FAILURE_REASONS = ['INSUFFICIENT_FUNDS', 'DECLINED', 'PROVIDER_ERROR'] as const;
export type CollectionFailureReason = (typeof COLLECTION_FAILURE_REASONS)[number];

export const CollectionFailedV1 = eventData({
  internalReference: text,
  reason: enumOf(COLLECTION_FAILURE_REASONS),
  statusMessage: text,
  failedAt: instant,
});
export type CollectionFailedV1 = Static<typeof CollectionFailedV1>;

export const CollectionCancelledV1 = eventData({
  internalReference: text,
  reason: enumOf(COLLECTION_CANCELLATION_REASONS),
  statusMessage: text,
  cancelledAt: instant,
});
export type CollectionCancelledV1 = Static<typeof CollectionCancelledV1>;

export const PrnAcceptedV1 = eventData({ internalReference: text, acceptedAt: instant });
export type PrnAcceptedV1 = Static<typeof PrnAcceptedV1>;

/**
 * Each event type's data at COLLECTION_EVENT_SCHEMA_VERSION: the one source of the catalogue's
 * JSON Schemas and of the CollectionEvent type.
 */
export const COLLECTION_EVENT_SCHEMAS = {
  [COLLECTION_EVENT_TYPES.initiated]: CollectionInitiatedV1,
  [COLLECTION_EVENT_TYPES.confirmed]: CollectionConfirmedV1,
  [COLLECTION_EVENT_TYPES.pinPromptSent]: PinPromptSentV1,
  [COLLECTION_EVENT_TYPES.cardCheckoutOpened]: CardCheckoutOpenedV1,
  [COLLECTION_EVENT_TYPES.completed]: CollectionCompletedV1,
  [COLLECTION_EVENT_TYPES.failed]: CollectionFailedV1,
  [COLLECTION_EVENT_TYPES.cancelled]: CollectionCancelledV1,
  [COLLECTION_EVENT_TYPES.prnAccepted]: PrnAcceptedV1,
};

export type CollectionEvent = EventsOf<typeof COLLECTION_EVENT_SCHEMAS>;

export const COLLECTION_EVENT_SCHEMA_VERSION = 1;
