import type { MoneyOutRequest } from '@paygate/disbursements-domain';

export const T0 = Date.parse('2026-11-28T10:00:00.000Z');
export const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

export const request = (kind: 'REFUND' | 'PAYOUT', reference: string, requestedAt: string): MoneyOutRequest => ({
  kind,
  merchantId: 'mer_1',
  reference,
  currency: 'UGX',
  requestedAmount: 1_000,
  amount: 1_000,
  fee: 0,
  providerCode: 'mtn_momo_ug',
  internalReference: kind === 'REFUND' ? 'PG0000000000000000000000AB' : null,
  merchantReference: kind === 'REFUND' ? 'order-1' : null,
  msisdn: '256772000001',
  recipientName: null,
  reason: null,
  livemode: false,
  requestedAt,
});
