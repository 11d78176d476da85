import { toCollectionRecord, type Collection } from '@paygate/collections-domain';
import { COLLECTION_EVENT_TYPES as EVENTS, type CollectionEvent, type CollectionStatus } from '@paygate/contracts';

/** Callback event names of DESIGN §2 (States, events and callbacks). */
export const CALLBACK_EVENTS = {
  charges: 'transaction.charges',
  completed: 'transaction.completed',
  failed: 'transaction.failed',
  cancelled: 'transaction.cancelled',
} as const;

export type CallbackEventName = (typeof CALLBACK_EVENTS)[keyof typeof CALLBACK_EVENTS];

/** The collection payload of a callback; note `transaction_charge`, where acknowledgements say `transaction_fee`. */
export interface CollectionCallbackPayload {
  id: number;
  merchant_reference: string;
  internal_reference: string;
  transaction_type: 'COLLECTION';
  request_currency: string;
  request_amount: number;
  transaction_currency: string;
  transaction_amount: number;
  transaction_charge: number;
  charge_customer: boolean;
  total_credit: number;
  transaction_account: string | null;
  provider_code: string;
  customer_name: string;
  transaction_status: CollectionStatus;
  status_message: string;
  /** Only in transaction.charges. */
  institution_name?: string;
}

export interface CallbackMessage {
  event: CallbackEventName;
  payload: CollectionCallbackPayload;
}

/** The acknowledgement's record, as callbacks name it: the fee is `transaction_charge` there. */
function payloadOf(collection: Collection): CollectionCallbackPayload {
  const { transaction_fee, ...record } = toCollectionRecord(collection);
  // payment_url is for the merchant's API caller, not for callbacks.
  delete record.payment_url;
  return {
    ...record,
    transaction_charge: transaction_fee,
    transaction_account: collection.transactionAccount ?? null,
    customer_name: collection.initiated.customerName,
  };
}

/**
 * The callback a collection event causes, given the collection's state right after it, or
 * null for events the merchant is not called about (confirmation, prompt, checkout).
 */
export function collectionCallbackFor(event: CollectionEvent, after: Collection): CallbackMessage | null {
  switch (event.type) {
    case EVENTS.initiated:
      // Charges go to merchants who confirm themselves: they show them before confirming.
      return event.data.requireConfirmation ? { event: CALLBACK_EVENTS.charges, payload: { ...payloadOf(after), institution_name: event.data.institutionName } } : null;
    case EVENTS.completed:
      return { event: CALLBACK_EVENTS.completed, payload: payloadOf(after) };
    case EVENTS.failed:
      return { event: CALLBACK_EVENTS.failed, payload: payloadOf(after) };
    case EVENTS.cancelled:
      return { event: CALLBACK_EVENTS.cancelled, payload: payloadOf(after) };
    default:
      return null;
  }
}

/** The exact bytes sent: signatures are computed over this string and nothing else. */
export function callbackBody(message: CallbackMessage): string {
  return JSON.stringify({ event: message.event, payload: message.payload });
}
