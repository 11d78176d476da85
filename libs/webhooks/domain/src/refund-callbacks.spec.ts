import { DISBURSEMENTS_INTEGRATION_EVENTS as PUBLISHED, type PublishedRefundV1 } from '@paygate/contracts';
import { publishedRefund } from '@paygate/testing';
import { callbackBody } from './collection-callbacks';
import { refundCallbackFor, type RefundSettledEvent } from './refund-callbacks';

const settled = (overrides: Partial<PublishedRefundV1> = {}): RefundSettledEvent => ({
  id: 'r1',
  type: PUBLISHED.refundSettled,
  version: 1,
  streamName: 'refund-mer_1-refund-1001',
  revision: 4,
  data: { refund: publishedRefund(overrides), settledAt: '2026-01-01T00:00:05.000Z' },
});

describe('refund callbacks', () => {
  it('sends refund.completed with the refund record as the API shows it, the collection’s merchant_reference and the amount in major units', () => {
    expect(refundCallbackFor(settled())).toEqual({
      event: 'refund.completed',
      payload: {
        refund_reference: 'refund-1001',
        internal_reference: 'PGREF',
        merchant_reference: 'order-7',
        amount: 20000,
        currency: 'UGX',
        status: 'COMPLETED',
        pending_reason: null,
        failure_reason: null,
        reason: 'Order cancelled by the customer',
        livemode: false,
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-01T00:00:05.000Z',
      },
    });
  });

  it('sends refund.failed with what the provider said when the refund failed', () => {
    const message = refundCallbackFor(
      settled({ status: 'FAILED', failureReason: 'NOT_ALLOWED: the payer account cannot receive', reason: null }),
    );
    expect(message.event).toBe('refund.failed');
    expect(message.payload).toMatchObject({
      status: 'FAILED',
      failure_reason: 'NOT_ALLOWED: the payer account cannot receive',
      reason: null,
      pending_reason: null,
    });
  });

  it('writes amounts of a currency with cents in major units', () => {
    expect(refundCallbackFor(settled({ currency: 'USD', amount: 1_050 })).payload).toMatchObject({
      amount: 10.5,
      currency: 'USD',
    });
  });

  it('is sent as {event, payload} and nothing else', () => {
    const body = callbackBody(refundCallbackFor(settled()));
    expect(body.startsWith('{"event":"refund.completed","payload":{"refund_reference":"refund-1001",')).toBe(true);
    expect(Object.keys(JSON.parse(body) as object)).toEqual(['event', 'payload']);
  });
});
