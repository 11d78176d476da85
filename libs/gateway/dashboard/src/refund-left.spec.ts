import type { CollectionDetails, RefundRecord } from '@paygate/contracts';
import { ACKNOWLEDGED_MOMO_RECORD } from '@paygate/testing';
import { leftToRefund } from './refund-left';

const collection = (overrides: Partial<CollectionDetails> = {}): CollectionDetails => ({
  ...ACKNOWLEDGED_MOMO_RECORD,
  id: 7,
  merchant_reference: 'order-7',
  internal_reference: 'PG7K3M9Q2X4T8V6B1N5R0D2F3H',
  transaction_status: 'COMPLETED',
  status_message: 'Transaction completed successfully',
  transaction_method: 'MOBILE_MONEY',
  transaction_account: '256772000001',
  customer_name: 'Jane Doe',
  created_at: '2026-11-27T10:00:00.000Z',
  updated_at: '2026-11-27T10:00:02.000Z',
  ...overrides,
});

const refund = (amount: number, status: RefundRecord['status'], currency = 'UGX'): RefundRecord => ({
  refund_reference: `refund-${amount}-${status}`,
  internal_reference: 'PG7K3M9Q2X4T8V6B1N5R0D2F3H',
  amount,
  currency,
  status,
  pending_reason: status === 'PENDING' ? 'provider_processing' : null,
  failure_reason: status === 'FAILED' ? 'refused' : null,
  reason: null,
  livemode: false,
  created_at: '2026-11-27T11:00:00.000Z',
  updated_at: '2026-11-27T11:00:00.000Z',
});

describe('what is left to refund of a collection', () => {
  it('is all the payer paid before any refund', () => {
    expect(leftToRefund(collection(), [])).toBe(81_000);
  });

  it('counts completed refunds and those still in flight, not failed ones', () => {
    expect(
      leftToRefund(collection(), [refund(20_000, 'COMPLETED'), refund(30_000, 'PENDING'), refund(31_000, 'FAILED')]),
    ).toBe(31_000);
  });

  it('is in minor units of a currency with cents, and never below zero', () => {
    const dollars = collection({ transaction_currency: 'USD', transaction_amount: 10.5 });
    expect(leftToRefund(dollars, [refund(0.25, 'COMPLETED', 'USD')])).toBe(1_025);
    expect(leftToRefund(collection(), [refund(81_000, 'COMPLETED'), refund(1, 'PENDING')])).toBe(0);
  });
});
