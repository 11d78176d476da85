import {
  COLLECTION_INTEGRATION_EVENTS as PUBLISHED,
  type CollectionDetails,
  type CollectionIntegrationEvent,
  type CollectionRecord,
  type CollectionStatus,
  type PublishedCollectionV1,
} from '@paygate/contracts';
import { toMajorUnits } from '@paygate/money';

/** Callback event names (docs/webhooks.md). */
export const CALLBACK_EVENTS = {
  charges: 'transaction.charges',
  completed: 'transaction.completed',
  failed: 'transaction.failed',
  cancelled: 'transaction.cancelled',
} as const;

export type CallbackEventName = (typeof CALLBACK_EVENTS)[keyof typeof CALLBACK_EVENTS];

/**
 * The collection payload of a callback: the record the merchant API shows, but `transaction_charge` where
 * acknowledgements say `transaction_fee`, and no `payment_url`.
 */
export interface CollectionCallbackPayload
  extends
    Omit<CollectionRecord, 'transaction_fee' | 'payment_url'>,
    Pick<CollectionDetails, 'transaction_account' | 'customer_name'> {
  transaction_charge: number;
  /** Only in transaction.charges. */
  institution_name?: string;
}

export interface CallbackMessage {
  event: CallbackEventName;
  payload: CollectionCallbackPayload;
}

const CALLBACK_BY_STATUS: Record<Exclude<CollectionStatus, 'PENDING'>, CallbackEventName> = {
  COMPLETED: CALLBACK_EVENTS.completed,
  FAILED: CALLBACK_EVENTS.failed,
  CANCELLED: CALLBACK_EVENTS.cancelled,
};

/** The published collection in the callback's field names; amounts back in major units. */
function payloadOf(collection: PublishedCollectionV1): CollectionCallbackPayload {
  const major = (minor: number) => toMajorUnits(minor, collection.currency);
  return {
    id: collection.id,
    merchant_reference: collection.merchantReference,
    internal_reference: collection.internalReference,
    transaction_type: 'COLLECTION',
    request_currency: collection.currency,
    request_amount: major(collection.requestAmount),
    transaction_currency: collection.currency,
    transaction_amount: major(collection.transactionAmount),
    transaction_charge: major(collection.fee),
    charge_customer: collection.chargeCustomer,
    total_credit: major(collection.totalCredit),
    transaction_account: collection.transactionAccount,
    provider_code: collection.providerCode,
    customer_name: collection.customerName,
    transaction_status: collection.status,
    status_message: collection.statusMessage,
    // Absent from collections published before MODE existed: test data.
    livemode: collection.livemode === true,
  };
}

/**
 * The callback a published collection event causes, or null: a collection opened with
 * require_confirmation=false gets no charges callback (nobody confirms it).
 */
export function collectionCallbackFor(event: CollectionIntegrationEvent): CallbackMessage | null {
  const { collection } = event.data;
  if (event.type === PUBLISHED.opened) {
    // Charges go to merchants who confirm themselves: they show them before confirming.
    return collection.requireConfirmation
      ? {
          event: CALLBACK_EVENTS.charges,
          payload: { ...payloadOf(collection), institution_name: collection.institutionName },
        }
      : null;
  }
  // A collect-for-payment collection is announced to service-payments first; its charges
  // follow CollectionOpened once the PRN is accepted.
  if (event.type === PUBLISHED.servicePaymentRequested || collection.status === 'PENDING') return null;
  return { event: CALLBACK_BY_STATUS[collection.status], payload: payloadOf(collection) };
}

/** The exact bytes sent: signatures are computed over this string and nothing else. */
export function callbackBody(message: { event: string; payload: object }): string {
  return JSON.stringify({ event: message.event, payload: message.payload });
}
