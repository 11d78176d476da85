import {
  PAYMENTS_INTEGRATION_EVENTS as PUBLISHED,
  type PaymentsIntegrationEvent,
  type PublishedServicePaymentV1,
  type ServicePaymentStatus,
} from '@paygate/contracts';
import { publishedServicePayment } from '@paygate/testing';
import { callbackBody } from './collection-callbacks';
import { servicePaymentCallbackFor } from './service-payment-callbacks';

const at = '2026-01-01T00:00:00.000Z';
const payment = (
  status: ServicePaymentStatus,
  statusMessage: string,
  overrides: Partial<PublishedServicePaymentV1> = {},
): PublishedServicePaymentV1 =>
  publishedServicePayment({
    status,
    statusMessage,
    billerPaymentId: status === 'COMPLETED' ? 'ura-pay-1' : null,
    ...overrides,
  });
const envelope = { id: 'e1', version: 1, streamName: 'service-payment-PGREF', revision: 3 };
const completed = (overrides: Partial<PublishedServicePaymentV1> = {}): PaymentsIntegrationEvent => ({
  ...envelope,
  type: PUBLISHED.completed,
  data: { payment: payment('COMPLETED', 'PRN paid successfully', overrides), completedAt: at },
});
const failed = (overrides: Partial<PublishedServicePaymentV1> = {}): PaymentsIntegrationEvent => ({
  ...envelope,
  type: PUBLISHED.failed,
  data: {
    payment: payment('FAILED', 'PRN payment refused by the biller: PRN cancelled by URA', overrides),
    failedAt: at,
  },
});
const rejected = (): PaymentsIntegrationEvent => ({
  ...envelope,
  type: PUBLISHED.prnRejected,
  data: {
    payment: payment('FAILED', 'PRN not eligible: already paid'),
    reasonCode: 'PRN_ALREADY_PAID',
    reason: 'already paid',
    rejectedAt: at,
  },
});
const validated = (): PaymentsIntegrationEvent => ({
  ...envelope,
  type: PUBLISHED.prnValidated,
  data: { payment: payment('PENDING', 'PRN validated. Awaiting the collection'), validatedAt: at },
});

describe('service payment callbacks', () => {
  it('sends payment.completed with the collection’s references, the PRN as account_number and the fields of docs/webhooks.md', () => {
    const message = servicePaymentCallbackFor(completed());
    expect(message).toEqual({
      event: 'payment.completed',
      payload: {
        id: 7,
        merchant_reference: 'tax-2025-03',
        internal_reference: 'PGREF',
        transaction_type: 'SERVICE_PAYMENT',
        request_currency: 'UGX',
        request_amount: 81000,
        transaction_status: 'COMPLETED',
        account_number: '2250000123456',
        transaction_charge: 1215,
        transaction_amount: 81000,
        customer_name: 'Jane Doe',
        service_name: 'URA',
        status_message: 'PRN paid successfully',
        additional_details: {},
        livemode: false,
      },
    });
    // Exactly these fields, in this order: the body is what merchants parse and what is signed.
    expect(Object.keys(message!.payload)).toEqual([
      'id',
      'merchant_reference',
      'internal_reference',
      'transaction_type',
      'request_currency',
      'request_amount',
      'transaction_status',
      'account_number',
      'transaction_charge',
      'transaction_amount',
      'customer_name',
      'service_name',
      'status_message',
      'additional_details',
      'livemode',
    ]);
  });

  it('sends a payment that failed after the collection as payment.failed with the payments status message', () => {
    expect(servicePaymentCallbackFor(failed())).toMatchObject({
      event: 'payment.failed',
      payload: {
        transaction_type: 'SERVICE_PAYMENT',
        transaction_status: 'FAILED',
        account_number: '2250000123456',
        status_message: 'PRN payment refused by the biller: PRN cancelled by URA',
        additional_details: {},
      },
    });
  });

  it('sends a rejected PRN as payment.failed with the rejection as status message', () => {
    expect(servicePaymentCallbackFor(rejected())).toMatchObject({
      event: 'payment.failed',
      payload: {
        id: 7,
        internal_reference: 'PGREF',
        merchant_reference: 'tax-2025-03',
        transaction_status: 'FAILED',
        status_message: 'PRN not eligible: already paid',
        additional_details: {},
      },
    });
  });

  it('says livemode true for a live deployment’s payment, and false for one published before livemode was carried', () => {
    expect(servicePaymentCallbackFor(completed({ livemode: true }))?.payload.livemode).toBe(true);
    const older = payment('COMPLETED', 'PRN paid successfully');
    delete older.livemode;
    const stored: PaymentsIntegrationEvent = {
      ...envelope,
      type: PUBLISHED.completed,
      data: { payment: older, completedAt: at },
    };
    expect(servicePaymentCallbackFor(stored)?.payload.livemode).toBe(false);
  });

  it('tells the merchant nothing about a validated PRN', () => {
    expect(servicePaymentCallbackFor(validated())).toBeNull();
  });

  it('takes transaction_status from the event, whatever status the record carries', () => {
    expect(servicePaymentCallbackFor(completed({ status: 'PENDING' }))?.payload.transaction_status).toBe('COMPLETED');
    expect(servicePaymentCallbackFor(failed({ status: 'PENDING' }))?.payload.transaction_status).toBe('FAILED');
  });

  it('shows amounts in major units of two-decimal currencies', () => {
    const message = servicePaymentCallbackFor(
      completed({ currency: 'USD', requestAmount: 1250, fee: 31, transactionAmount: 1281 }),
    );
    expect(message?.payload).toMatchObject({
      request_currency: 'USD',
      request_amount: 12.5,
      transaction_charge: 0.31,
      transaction_amount: 12.81,
    });
  });

  it('serialises the body as {event, payload} with additional_details as an empty object', () => {
    const message = servicePaymentCallbackFor(rejected())!;
    const body = JSON.parse(callbackBody(message));
    expect(body).toEqual({ event: 'payment.failed', payload: message.payload });
    expect(body.payload.additional_details).toEqual({});
  });
});
