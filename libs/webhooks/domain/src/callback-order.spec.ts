import {
  COLLECTION_INTEGRATION_EVENTS as COLLECTIONS,
  PAYMENTS_INTEGRATION_EVENTS as PAYMENTS,
  type CollectionIntegrationEvent,
  type PaymentsIntegrationEvent,
  type PublishedCollectionV1,
  type PublishedServicePaymentV1,
} from '@paygate/contracts';
import { publishedCollection, publishedServicePayment } from '@paygate/testing';
import {
  collectionCallbackOrder,
  isCancelledBeforeVerdict,
  PAYMENT_AFTER_COLLECTION,
  PAYMENT_BEFORE_COLLECTION,
  REFUND_AFTER_COLLECTION,
  refundCallbackOrder,
  servicePaymentCallbackOrder,
} from './callback-order';

const at = '2026-01-01T00:00:00.000Z';
const collection = (overrides: Partial<PublishedCollectionV1>): PublishedCollectionV1 =>
  publishedCollection({ merchantReference: 'tax-2025-03', prn: '2250000123456', ...overrides });
const settled = (revision: number, overrides: Partial<PublishedCollectionV1>): CollectionIntegrationEvent => ({
  id: `c${revision}`,
  type: COLLECTIONS.settled,
  version: 1,
  streamName: 'collection-PGREF',
  revision,
  data: { collection: collection(overrides), settledAt: at },
});
const opened = (revision: number): CollectionIntegrationEvent => ({
  id: `c${revision}`,
  type: COLLECTIONS.opened,
  version: 1,
  streamName: 'collection-PGREF',
  revision,
  data: { collection: collection({}), openedAt: at },
});
const paymentEvent = (type: PaymentsIntegrationEvent['type'], revision: number): PaymentsIntegrationEvent => {
  const base = { id: `p${revision}`, version: 1, streamName: 'service-payment-PGREF', revision };
  const record = (status: PublishedServicePaymentV1['status']) =>
    publishedServicePayment({ status, statusMessage: 'x' });
  switch (type) {
    case PAYMENTS.prnValidated:
      return { ...base, type, data: { payment: record('PENDING'), validatedAt: at } };
    case PAYMENTS.prnRejected:
      return {
        ...base,
        type,
        data: { payment: record('FAILED'), reasonCode: 'PRN_ALREADY_PAID', reason: 'already paid', rejectedAt: at },
      };
    case PAYMENTS.completed:
      return { ...base, type, data: { payment: record('COMPLETED'), completedAt: at } };
    case PAYMENTS.failed:
      return { ...base, type, data: { payment: record('FAILED'), failedAt: at } };
  }
};

describe('the order of a transaction’s callbacks across the collection and payment streams', () => {
  it('orders collection callbacks by their stream revision and makes them wait for nothing', () => {
    expect(collectionCallbackOrder(opened(3))).toEqual({ sequence: 3, awaits: [] });
    expect(
      collectionCallbackOrder(settled(9, { status: 'COMPLETED', statusMessage: 'Transaction completed successfully' })),
    ).toEqual({
      sequence: 9,
      awaits: [],
    });
    expect(
      collectionCallbackOrder(
        settled(9, { status: 'CANCELLED', statusMessage: 'Transaction declined by the customer' }),
      ),
    ).toEqual({
      sequence: 9,
      awaits: [],
    });
  });

  it('puts payment.completed after every collection callback, once the collection’s transaction.completed is queued', () => {
    const order = servicePaymentCallbackOrder(paymentEvent(PAYMENTS.completed, 4));
    expect(order).toEqual({ sequence: PAYMENT_AFTER_COLLECTION + 4, awaits: ['transaction.completed'] });
  });

  it('puts payment.failed of a settled collection after every collection callback, once its final callback is queued', () => {
    const order = servicePaymentCallbackOrder(paymentEvent(PAYMENTS.failed, 5));
    expect(order).toEqual({
      sequence: PAYMENT_AFTER_COLLECTION + 5,
      awaits: ['transaction.completed', 'transaction.failed', 'transaction.cancelled'],
    });
  });

  it('puts payment.failed of a rejected PRN before every collection callback, and the cancellation it causes waits for it', () => {
    const order = servicePaymentCallbackOrder(paymentEvent(PAYMENTS.prnRejected, 1));
    expect(order).toEqual({ sequence: PAYMENT_BEFORE_COLLECTION + 1, awaits: [] });
    expect(order.sequence).toBeLessThan(0);
    const cancelled = settled(3, {
      status: 'CANCELLED',
      statusMessage: 'PRN not eligible: already paid',
      cancellationReason: 'PRN_NOT_ELIGIBLE',
    });
    expect(isCancelledBeforeVerdict(cancelled)).toBe(true);
    expect(collectionCallbackOrder(cancelled)).toEqual({ sequence: 3, awaits: ['payment.failed'] });
  });

  it('lets a cancellation by the verdict deadline wait for the payment.failed that follows it too: a late refusal still comes first', () => {
    const timedOut = settled(3, {
      status: 'CANCELLED',
      statusMessage: 'Transaction cancelled: the PRN could not be validated in time',
      cancellationReason: 'PRN_VALIDATION_TIMEOUT',
    });
    expect(collectionCallbackOrder(timedOut)).toEqual({ sequence: 3, awaits: ['payment.failed'] });
    // The refusal that came too late sorts before it; the failure the cancellation causes sorts after it (and awaits
    // it).
    expect(servicePaymentCallbackOrder(paymentEvent(PAYMENTS.prnRejected, 1)).sequence).toBeLessThan(3);
    expect(servicePaymentCallbackOrder(paymentEvent(PAYMENTS.failed, 2))).toEqual({
      sequence: PAYMENT_AFTER_COLLECTION + 2,
      awaits: ['transaction.completed', 'transaction.failed', 'transaction.cancelled'],
    });
  });

  it('tells a cancellation before the verdict by the published cancellation reason, not by the message', () => {
    expect(
      isCancelledBeforeVerdict(settled(3, { status: 'CANCELLED', statusMessage: 'PRN not eligible: already paid' })),
    ).toBe(false);
    expect(
      isCancelledBeforeVerdict(
        settled(3, {
          status: 'CANCELLED',
          statusMessage: 'Transaction cancelled: confirmation not received in time',
          cancellationReason: 'CONFIRMATION_TIMEOUT',
        }),
      ),
    ).toBe(false);
    expect(isCancelledBeforeVerdict(opened(3))).toBe(false);
  });

  it('puts a refund callback after every collection and payment callback, once the collection’s transaction.completed is queued', () => {
    expect(refundCallbackOrder()).toEqual({ sequence: REFUND_AFTER_COLLECTION, awaits: ['transaction.completed'] });
    expect(REFUND_AFTER_COLLECTION).toBeGreaterThan(
      servicePaymentCallbackOrder(paymentEvent(PAYMENTS.completed, 1_000_000)).sequence,
    );
  });

  it('keeps the bands apart from any realistic collection revision and inside a 32-bit sequence', () => {
    expect(PAYMENT_BEFORE_COLLECTION + 1_000).toBeLessThan(0);
    expect(PAYMENT_AFTER_COLLECTION).toBeGreaterThan(1_000_000);
    expect(PAYMENT_AFTER_COLLECTION + 1_000_000).toBeLessThan(2 ** 31);
    expect(REFUND_AFTER_COLLECTION).toBeLessThan(2 ** 31);
  });
});
