import { UnsupportedEventVersionError, type IntegrationEnvelope, type Publication } from '../publication';
import type { CollectionCancellationReason, CollectionStatus, TransactionMethod } from './vocabulary';

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

/**
 * A collection as other contexts see it: everything a callback, a wallet credit or a PRN
 * payment needs, nothing of the provider conversation. Amounts in integer minor units.
 */
export interface PublishedCollectionV1 {
  id: number;
  merchantId: string;
  merchantReference: string;
  internalReference: string;
  transactionMethod: TransactionMethod;
  providerCode: string;
  institutionName: string;
  currency: string;
  requestAmount: number;
  transactionAmount: number;
  fee: number;
  totalCredit: number;
  chargeCustomer: boolean;
  requireConfirmation: boolean;
  customerName: string;
  /** The msisdn, or a masked card once known; null before. */
  transactionAccount: string | null;
  status: CollectionStatus;
  statusMessage: string;
  /** Collect-for-payment only: the PRN to pay from the collected funds. */
  prn?: string;
  /** CANCELLED only: why, so consumers need not read statusMessage. */
  cancellationReason?: CollectionCancellationReason;
}

export interface CollectionOpenedV1 {
  collection: PublishedCollectionV1;
  openedAt: string;
}

export interface CollectionSettledV1 {
  collection: PublishedCollectionV1;
  settledAt: string;
}

export interface CollectionServicePaymentRequestedV1 {
  collection: PublishedCollectionV1;
  requestedAt: string;
}

export type CollectionIntegrationEvent =
  | IntegrationEnvelope<typeof COLLECTION_INTEGRATION_EVENTS.opened, CollectionOpenedV1>
  | IntegrationEnvelope<typeof COLLECTION_INTEGRATION_EVENTS.settled, CollectionSettledV1>
  | IntegrationEnvelope<typeof COLLECTION_INTEGRATION_EVENTS.servicePaymentRequested, CollectionServicePaymentRequestedV1>;

export const COLLECTION_INTEGRATION_VERSION = 1;

/**
 * Recognises a collections integration event at a version this consumer understands; other
 * types are not collection events (undefined), a version from the future is an error, so an
 * old consumer stops (and is redelivered to) rather than misreading it.
 */
export function readCollectionIntegrationEvent(event: IntegrationEnvelope): CollectionIntegrationEvent | undefined {
  if (!(Object.values(COLLECTION_INTEGRATION_EVENTS) as string[]).includes(event.type)) return undefined;
  if (event.version !== COLLECTION_INTEGRATION_VERSION) throw new UnsupportedEventVersionError(event.type, event.version, [COLLECTION_INTEGRATION_VERSION]);
  return event as CollectionIntegrationEvent;
}
