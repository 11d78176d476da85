import { randomBytes, randomUUID } from 'node:crypto';
import {
  COLLECTION_EVENT_SCHEMA_VERSION,
  COLLECTION_EVENT_TYPES as EVENTS,
  collectionDecider,
  type CollectionEvent,
  type CollectionState,
} from '@paygate/collections-domain';
import { fold } from '@paygate/decider';
import type { EventToAppend } from '@paygate/event-store';

const BASE32 = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** An internal reference of the form the collections service gives. */
export const newCollectionReference = () => `PG${Array.from(randomBytes(24), (byte) => BASE32[byte % 32]).join('')}`;

/**
 * The events the collections service appends for a mobile-money collection the merchant confirms
 * and the customer pays: Initiated (published as CollectionOpened, require_confirmation →
 * transaction.charges), then Confirmed, PinPromptSent and Completed (published as
 * CollectionSettled → transaction.completed). For suites and benchmarks that write a store the
 * dispatcher reads, without running collections.
 */
export function paidCollectionEvents(
  merchantId: string,
  reference: string,
  id: number,
  merchantReferencePrefix: string,
): { initiated: CollectionEvent; rest: CollectionEvent[] } {
  const now = Date.now();
  const at = (offsetMs: number) => new Date(now + offsetMs).toISOString();
  return {
    initiated: {
      type: EVENTS.initiated,
      data: {
        id,
        merchantId,
        merchantReference: `${merchantReferencePrefix}-${id}`,
        internalReference: reference,
        transactionMethod: 'MOBILE_MONEY',
        providerCode: 'mtn_momo_ug',
        institutionName: 'MTN Mobile Money Uganda',
        currency: 'UGX',
        requestAmount: 81_000,
        transactionAmount: 81_000,
        fee: 1_215,
        totalCredit: 79_785,
        chargeCustomer: false,
        requireConfirmation: true,
        msisdn: '256772000001',
        customerName: 'Jane Doe',
        requestHash: randomBytes(32).toString('hex'),
        initiatedAt: at(0),
        confirmationExpiresAt: at(1_800_000),
      },
    },
    rest: [
      {
        type: EVENTS.confirmed,
        data: { internalReference: reference, confirmedAt: at(1), implicit: false, providerExpiresAt: at(300_000) },
      },
      {
        type: EVENTS.pinPromptSent,
        data: { internalReference: reference, providerReference: randomUUID(), sentAt: at(2) },
      },
      {
        type: EVENTS.completed,
        data: {
          internalReference: reference,
          providerTransactionId: `mtn-${id}`,
          transactionAccount: '256772000001',
          statusMessage: 'Transaction successful',
          completedAt: at(3),
        },
      },
    ],
  };
}

/**
 * Domain events and what the collection publishes for them, as the collections service writes
 * them in one append; every event has its id (the dispatcher's webhook id is msg_<published id>).
 */
export function withPublished(
  events: CollectionEvent[],
  before: CollectionState,
): { domain: EventToAppend[]; published: EventToAppend[]; after: CollectionState } {
  const after = fold(collectionDecider, events, before);
  const domain = events.map((event) => ({
    id: randomUUID(),
    type: event.type,
    data: { ...event.data },
    metadata: { schemaVersion: COLLECTION_EVENT_SCHEMA_VERSION },
  }));
  const published = (collectionDecider.publish?.(events, after) ?? []).map((event) => ({
    id: randomUUID(),
    type: event.type,
    data: { ...event.data },
    metadata: { schemaVersion: event.version },
  }));
  return { domain, published, after };
}
