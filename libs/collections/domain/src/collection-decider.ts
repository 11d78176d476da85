import { eventReader, type StreamDecider } from '@paygate/decider';
import {
  COLLECTION_INTEGRATION_EVENTS as PUBLISHED,
  COLLECTION_INTEGRATION_VERSION,
  collectionStream,
  type PublishedCollectionV1,
} from '@paygate/contracts';
import { COLLECTION_EVENT_SCHEMA_VERSION, COLLECTION_EVENT_TYPES as EVENTS, type CollectionEvent } from './events';
import { decide, evolve, type Collection, type CollectionCommand, type CollectionState } from './collection';

/** Version 1 is the only shape written so far; a later version adds its upcasters here. */
const readCollectionEvent = eventReader<CollectionEvent>({
  types: Object.values(EVENTS),
  currentVersion: COLLECTION_EVENT_SCHEMA_VERSION,
});

/** What other contexts learn about a collection (COLLECTIONS_PUBLICATION). */
export function toPublishedCollection(collection: Collection): PublishedCollectionV1 {
  const data = collection.initiated;
  return {
    id: data.id,
    merchantId: data.merchantId,
    merchantReference: data.merchantReference,
    internalReference: data.internalReference,
    transactionMethod: data.transactionMethod,
    providerCode: data.providerCode,
    institutionName: data.institutionName,
    currency: data.currency,
    requestAmount: data.requestAmount,
    transactionAmount: data.transactionAmount,
    fee: data.fee,
    totalCredit: data.totalCredit,
    chargeCustomer: data.chargeCustomer,
    requireConfirmation: data.requireConfirmation,
    customerName: data.customerName,
    transactionAccount: collection.transactionAccount ?? null,
    status: collection.status,
    statusMessage: collection.statusMessage,
    ...(data.prn !== undefined && { prn: data.prn }),
    ...(collection.cancellationReason !== undefined && { cancellationReason: collection.cancellationReason }),
    livemode: data.livemode === true,
  };
}

/** The Collection on the shared decider runtime: stream `collection-<internal_reference>`. */
export const collectionDecider: StreamDecider<CollectionCommand, CollectionEvent, CollectionState> = {
  decide,
  evolve,
  initialState: null,
  streamName: collectionStream,
  schemaVersion: COLLECTION_EVENT_SCHEMA_VERSION,
  read: readCollectionEvent,
  publish(events, after) {
    if (!after) return [];
    const published = [];
    for (const event of events) {
      // A collect-for-payment collection is announced to service-payments and opens for the
      // customer only once its PRN is accepted.
      if (event.type === EVENTS.initiated && event.data.prn) {
        published.push({
          type: PUBLISHED.servicePaymentRequested,
          version: COLLECTION_INTEGRATION_VERSION,
          data: { collection: toPublishedCollection(after), requestedAt: event.data.initiatedAt },
        });
      } else if (event.type === EVENTS.initiated || event.type === EVENTS.prnAccepted) {
        const openedAt = event.type === EVENTS.initiated ? event.data.initiatedAt : event.data.acceptedAt;
        published.push({
          type: PUBLISHED.opened,
          version: COLLECTION_INTEGRATION_VERSION,
          data: { collection: toPublishedCollection(after), openedAt },
        });
      }
    }
    if (
      after.phase === 'FINAL' &&
      events.some(
        (event) => event.type === EVENTS.completed || event.type === EVENTS.failed || event.type === EVENTS.cancelled,
      )
    ) {
      published.push({
        type: PUBLISHED.settled,
        version: COLLECTION_INTEGRATION_VERSION,
        data: { collection: toPublishedCollection(after), settledAt: after.updatedAt },
      });
    }
    return published;
  },
};
