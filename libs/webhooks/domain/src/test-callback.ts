import type { CollectionCallbackPayload } from './collection-callbacks';

/** The event of a test callback (webhooks.sendTestCallback, the merchant dashboard's "send a test callback"). */
export const TEST_CALLBACK_EVENT = 'test.callback';

export interface TestCallbackMessage {
  event: typeof TEST_CALLBACK_EVENT;
  payload: CollectionCallbackPayload;
}

/** The internal reference of every test callback: well-formed, and never given to a collection (not random). */
export const TEST_CALLBACK_REFERENCE = 'PG000000000000000000000000';

/**
 * A test callback: a collection callback's envelope and a payload valid by the same schema, about no
 * transaction (internal reference TEST_CALLBACK_REFERENCE, amounts 0), so a receiver parses and
 * verifies it as it would a real one and tells it apart by its event.
 */
export function testCallback(): TestCallbackMessage {
  return {
    event: TEST_CALLBACK_EVENT,
    payload: {
      id: 1,
      merchant_reference: 'test-callback',
      internal_reference: TEST_CALLBACK_REFERENCE,
      transaction_type: 'COLLECTION',
      request_currency: 'UGX',
      request_amount: 0,
      transaction_currency: 'UGX',
      transaction_amount: 0,
      transaction_charge: 0,
      charge_customer: false,
      total_credit: 0,
      transaction_account: null,
      provider_code: 'test',
      customer_name: 'Paygate test callback',
      transaction_status: 'PENDING',
      status_message: 'A test callback: no transaction, no money moved',
      livemode: false,
    },
  };
}
