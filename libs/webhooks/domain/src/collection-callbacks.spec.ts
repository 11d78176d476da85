import {
  COLLECTION_INTEGRATION_EVENTS as PUBLISHED,
  type CollectionIntegrationEvent,
  type PublishedCollectionV1,
} from '@paygate/contracts';
import { publishedCollection } from '@paygate/testing';
import { callbackBody, collectionCallbackFor } from './collection-callbacks';

const at = '2026-01-01T00:00:00.000Z';
let revision = 0;
const published = (
  type: typeof PUBLISHED.opened | typeof PUBLISHED.settled,
  data: PublishedCollectionV1,
): CollectionIntegrationEvent =>
  type === PUBLISHED.opened
    ? {
        id: `e${revision}`,
        type,
        version: 1,
        streamName: 'collection-PGREF',
        revision: revision++,
        data: { collection: data, openedAt: at },
      }
    : {
        id: `e${revision}`,
        type,
        version: 1,
        streamName: 'collection-PGREF',
        revision: revision++,
        data: { collection: data, settledAt: at },
      };
const opened = (overrides: Partial<PublishedCollectionV1> = {}) =>
  published(PUBLISHED.opened, publishedCollection(overrides));
const settled = (overrides: Partial<PublishedCollectionV1>) =>
  published(PUBLISHED.settled, publishedCollection(overrides));

function callbacksOf(events: CollectionIntegrationEvent[]) {
  return events.map((event) => collectionCallbackFor(event)).filter((message) => message !== null);
}

describe('collection callbacks', () => {
  it('sends transaction.charges with institution_name when the merchant confirms, then the final callback without it', () => {
    const completed = settled({ status: 'COMPLETED', statusMessage: 'Transaction completed successfully' });
    const [charges, final] = callbacksOf([opened(), completed]);
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
        livemode: false,
      },
    });
    expect(final?.event).toBe('transaction.completed');
    expect(final?.payload).toMatchObject({
      transaction_status: 'COMPLETED',
      status_message: 'Transaction completed successfully',
    });
    expect(final?.payload).not.toHaveProperty('institution_name');
    expect(final?.payload).not.toHaveProperty('transaction_fee');
  });

  it('says livemode: true for a live deployment’s collection, false for a test one’s and for one published before MODE', () => {
    const completed = { status: 'COMPLETED', statusMessage: 'Transaction completed successfully' } as const;
    const livemodeOf = (event: CollectionIntegrationEvent) => collectionCallbackFor(event)?.payload.livemode;
    expect(livemodeOf(settled({ ...completed, livemode: true }))).toBe(true);
    expect(livemodeOf(settled({ ...completed, livemode: false }))).toBe(false);
    expect(publishedCollection()).not.toHaveProperty('livemode');
    expect(livemodeOf(settled(completed))).toBe(false);
  });

  it('sends no charges callback when initialize confirmed by itself', () => {
    expect(
      callbacksOf([opened({ requireConfirmation: false, statusMessage: 'Transaction initiated. Pending processing' })]),
    ).toEqual([]);
  });

  it.each([
    ['FAILED', 'Balance Insufficient for the transaction', 'transaction.failed'],
    ['CANCELLED', 'Transaction declined by the customer', 'transaction.cancelled'],
  ] as const)('sends a collection settled %s as %s', (status, message, name) => {
    const messages = callbacksOf([opened(), settled({ status, statusMessage: message })]);
    expect(messages.map((callback) => callback.event)).toEqual(['transaction.charges', name]);
    expect(messages[1].payload).toMatchObject({ transaction_status: status, status_message: message });
  });

  it('shows amounts in major units of two-decimal currencies', () => {
    const [charges] = callbacksOf([
      opened({ currency: 'USD', requestAmount: 1250, transactionAmount: 1250, fee: 31, totalCredit: 1219 }),
    ]);
    expect(charges.payload).toMatchObject({ request_amount: 12.5, transaction_charge: 0.31, total_credit: 12.19 });
  });

  it('serialises the body as {event, payload}', () => {
    const [charges] = callbacksOf([opened()]);
    expect(JSON.parse(callbackBody(charges))).toEqual({ event: charges.event, payload: charges.payload });
  });
});
