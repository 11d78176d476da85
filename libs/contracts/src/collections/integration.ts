import { Type, type Static } from '@sinclair/typebox';
import { closedObject, eventData, enumOf, SCHEMA } from '../json-schema';
import {
  UnsupportedEventVersionError,
  type IntegrationEnvelope,
  type IntegrationEventsOf,
  type Publication,
} from '../publication';
import { COLLECTION_CANCELLATION_REASONS, COLLECTION_STATUSES, TRANSACTION_METHODS } from './vocabulary';

/** The collections context publishes from its collection streams. */
export const COLLECTIONS_PUBLICATION: Publication = { context: 'collections', streamPrefixes: ['collection-'] };

export const COLLECTION_INTEGRATION_EVENTS = {
  /**
   * A collection is open for the customer (every collection, whatever require_confirmation
   * says; a collect-for-payment one once its PRN was accepted).
   */
  opened: 'collections.CollectionOpened',
  /** A collect-for-payment collection was accepted and waits for service-payments' PRN verdict. */
  servicePaymentRequested: 'collections.ServicePaymentRequested',
  /** A collection reached its final state: COMPLETED, FAILED or CANCELLED. */
  settled: 'collections.CollectionSettled',
} as const;

const { text, textOrNull, instant, minorUnits, currency, id, boolean, prn } = SCHEMA;

/**
 * A collection as other contexts see it: everything a callback, a wallet credit or a PRN
 * payment needs, nothing of the provider conversation. Amounts in integer minor units.
 */
export const PublishedCollectionV1 = closedObject({
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
  customerName: text,
  /** The msisdn, or a masked card once known; null before. */
  transactionAccount: textOrNull,
  status: enumOf(COLLECTION_STATUSES),
  statusMessage: text,
  /** Collect-for-payment only: the PRN to pay from the collected funds. */
  prn: Type.Optional(prn),
  /** CANCELLED only: why, so consumers need not read statusMessage. */
  cancellationReason: Type.Optional(enumOf(COLLECTION_CANCELLATION_REASONS)),
  /**
   * Opened by a live deployment (MODE=live). Absent from events published before MODE existed: those
   * are test data, read as false (an optional field, so every stored version-1 event still matches).
   */
  livemode: Type.Optional(boolean),
});
export type PublishedCollectionV1 = Static<typeof PublishedCollectionV1>;

export const CollectionOpenedV1 = eventData({ collection: PublishedCollectionV1, openedAt: instant });
export type CollectionOpenedV1 = Static<typeof CollectionOpenedV1>;

export const CollectionSettledV1 = eventData({ collection: PublishedCollectionV1, settledAt: instant });
export type CollectionSettledV1 = Static<typeof CollectionSettledV1>;

export const CollectionServicePaymentRequestedV1 = eventData({
  collection: PublishedCollectionV1,
  requestedAt: instant,
});
export type CollectionServicePaymentRequestedV1 = Static<typeof CollectionServicePaymentRequestedV1>;

/** The collections integration events at COLLECTION_INTEGRATION_VERSION: the catalogue's and the type's one source. */
export const COLLECTION_INTEGRATION_SCHEMAS = {
  [COLLECTION_INTEGRATION_EVENTS.opened]: CollectionOpenedV1,
  [COLLECTION_INTEGRATION_EVENTS.settled]: CollectionSettledV1,
  [COLLECTION_INTEGRATION_EVENTS.servicePaymentRequested]: CollectionServicePaymentRequestedV1,
};

export type CollectionIntegrationEvent = IntegrationEventsOf<typeof COLLECTION_INTEGRATION_SCHEMAS>;

export const COLLECTION_INTEGRATION_VERSION = 1;

/**
 * Recognises a collections integration event at a version this consumer understands; other
 * types are not collection events (undefined), a version from the future is an error, so an
 * old consumer stops (and is redelivered to) rather than misreading it.
 */
export function readCollectionIntegrationEvent(event: IntegrationEnvelope): CollectionIntegrationEvent | undefined {
  if (!(Object.values(COLLECTION_INTEGRATION_EVENTS) as string[]).includes(event.type)) return undefined;
  if (event.version !== COLLECTION_INTEGRATION_VERSION)
    throw new UnsupportedEventVersionError(event.type, event.version, [COLLECTION_INTEGRATION_VERSION]);
  return event as CollectionIntegrationEvent;
}
