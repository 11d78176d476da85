import { rebuild, type Collection } from '@paygate/collections-domain';
import { COLLECTION_EVENT_TYPES as EVENTS, type CollectionEvent, type CollectionInitiatedV1 } from '@paygate/contracts';
import { callbackBody, collectionCallbackFor } from './collection-callbacks';

const at = '2026-01-01T00:00:00.000Z';
const initiated = (overrides: Partial<CollectionInitiatedV1> = {}): CollectionEvent => ({
  type: EVENTS.initiated,
  data: {
    id: 7,
    merchantId: 'mer_1',
    merchantReference: 'order-7',
    internalReference: 'PGREF',
    transactionMethod: 'MOBILE_MONEY',
    providerCode: 'mtn_momo_ug',
    institutionName: 'MTN Mobile Money Uganda',
    currency: 'UGX',
    requestAmount: 81000,
    transactionAmount: 81000,
    fee: 1215,
    totalCredit: 79785,
    chargeCustomer: false,
    requireConfirmation: true,
    msisdn: '256772000001',
    customerName: 'Jane Doe',
    requestHash: 'a'.repeat(64),
    initiatedAt: at,
    confirmationExpiresAt: at,
    ...overrides,
  },
});
const confirmed: CollectionEvent = { type: EVENTS.confirmed, data: { internalReference: 'PGREF', confirmedAt: at, implicit: false, providerExpiresAt: at } };
const prompt: CollectionEvent = { type: EVENTS.pinPromptSent, data: { internalReference: 'PGREF', providerReference: 'ref', sentAt: at } };

function callbacksOf(events: CollectionEvent[]) {
  return events.map((event, index) => collectionCallbackFor(event, rebuild(events.slice(0, index + 1)) as Collection)).filter((message) => message !== null);
}

describe('collection callbacks', () => {
  it('sends transaction.charges with institution_name when the merchant confirms, then the final callback without it', () => {
    const completed: CollectionEvent = {
      type: EVENTS.completed,
      data: { internalReference: 'PGREF', providerTransactionId: '1', transactionAccount: '256772000001', statusMessage: 'Transaction completed successfully', completedAt: at },
    };
    const [charges, final] = callbacksOf([initiated(), confirmed, prompt, completed]);
    expect(charges).toEqual({
      event: 'transaction.charges',
      payload: {
        id: 7,
        merchant_reference: 'order-7',
        internal_reference: 'PGREF',
        transaction_type: 'COLLECTION',
        request_currency: 'UGX',
        request_amount: 81000,
        transaction_currency: 'UGX',
        transaction_amount: 81000,
        transaction_charge: 1215,
        charge_customer: false,
        total_credit: 79785,
        transaction_account: '256772000001',
        provider_code: 'mtn_momo_ug',
        customer_name: 'Jane Doe',
        transaction_status: 'PENDING',
        status_message: 'Transaction initiated. Pending customer confirmation',
        institution_name: 'MTN Mobile Money Uganda',
      },
    });
    expect(final?.event).toBe('transaction.completed');
    expect(final?.payload).toMatchObject({ transaction_status: 'COMPLETED', status_message: 'Transaction completed successfully' });
    expect(final?.payload).not.toHaveProperty('institution_name');
    expect(final?.payload).not.toHaveProperty('transaction_fee');
  });

  it('sends no charges callback when initialize confirmed by itself', () => {
    expect(callbacksOf([initiated({ requireConfirmation: false, confirmationExpiresAt: undefined })])).toEqual([]);
  });

  it.each([
    [{ type: EVENTS.failed, data: { internalReference: 'PGREF', reason: 'INSUFFICIENT_FUNDS', statusMessage: 'Balance Insufficient for the transaction', failedAt: at } }, 'transaction.failed', 'FAILED'],
    [{ type: EVENTS.cancelled, data: { internalReference: 'PGREF', reason: 'CUSTOMER_DECLINED', statusMessage: 'Transaction declined by the customer', cancelledAt: at } }, 'transaction.cancelled', 'CANCELLED'],
  ] as [CollectionEvent, string, string][])('sends %s as %s', (event, name, status) => {
    const messages = callbacksOf([initiated(), confirmed, prompt, event]);
    expect(messages.map((message) => message.event)).toEqual(['transaction.charges', name]);
    expect(messages[1].payload.transaction_status).toBe(status);
  });

  it('shows amounts in major units of two-decimal currencies', () => {
    const [charges] = callbacksOf([initiated({ currency: 'USD', requestAmount: 1250, transactionAmount: 1250, fee: 31, totalCredit: 1219 })]);
    expect(charges.payload).toMatchObject({ request_amount: 12.5, transaction_charge: 0.31, total_credit: 12.19 });
  });

  it('serialises the body as {event, payload}', () => {
    const [charges] = callbacksOf([initiated()]);
    expect(JSON.parse(callbackBody(charges))).toEqual({ event: charges.event, payload: charges.payload });
  });
});
