/**
 * The payments event declarations, domain and integration, which the other payments specs check
 * every event decided or published against (payments-test-setup.ts): one per event type, and
 * they refuse what a stored or published event must never hold.
 */
import { PAYMENTS_INTEGRATION_EVENTS, PAYMENTS_INTEGRATION_SCHEMAS } from '@paygate/contracts';
import {
  SERVICE_PAYMENT_EVENT_SCHEMAS,
  SERVICE_PAYMENT_EVENT_TYPES,
  WALLET_EVENT_SCHEMAS,
  WALLET_EVENT_TYPES,
} from './events';
import { eventSchemaErrors, T0 } from './payments-test-setup';

describe('the payments schemas', () => {
  it('have one schema per event type, domain and integration', () => {
    expect(Object.keys(SERVICE_PAYMENT_EVENT_SCHEMAS).sort()).toEqual(
      Object.values(SERVICE_PAYMENT_EVENT_TYPES).sort(),
    );
    expect(Object.keys(WALLET_EVENT_SCHEMAS).sort()).toEqual(Object.values(WALLET_EVENT_TYPES).sort());
    expect(Object.keys(PAYMENTS_INTEGRATION_SCHEMAS).sort()).toEqual(Object.values(PAYMENTS_INTEGRATION_EVENTS).sort());
  });

  it('name the integration events <context>.<Name> and the domain events without a context', () => {
    for (const type of Object.values(PAYMENTS_INTEGRATION_EVENTS)) expect(type).toMatch(/^payments\.[A-Z][A-Za-z]+$/);
    for (const type of [...Object.values(SERVICE_PAYMENT_EVENT_TYPES), ...Object.values(WALLET_EVENT_TYPES)])
      expect(type).toMatch(/^[A-Z][A-Za-z]+$/);
  });
});

describe('the declarations', () => {
  const transfer = {
    transferId: 't1',
    debitAccount: 'top_up:UGX',
    creditAccount: 'merchant_wallet:m-1:UGX',
    amount: 5,
    currency: 'UGX',
  };
  const toppedUp = {
    type: WALLET_EVENT_TYPES.toppedUp,
    data: { merchantId: 'm-1', currency: 'UGX', transfer, toppedUpAt: T0 },
  };
  const credited = {
    type: WALLET_EVENT_TYPES.collectionCredited,
    data: { merchantId: 'm-1', currency: 'UGX', internalReference: 'PG1', transfers: [transfer], creditedAt: T0 },
  };
  const rejected = {
    type: SERVICE_PAYMENT_EVENT_TYPES.prnRejected,
    data: {
      internalReference: 'PG1',
      prn: '2250000123456',
      reasonCode: 'PRN_EXPIRED',
      reason: 'expired',
      statusMessage: 'PRN not eligible: expired',
      rejectedAt: T0,
    },
  };
  const payment = {
    id: 1,
    merchantId: 'm-1',
    merchantReference: 'r',
    internalReference: 'PG1',
    currency: 'UGX',
    requestAmount: 10,
    prn: '2250000123456',
    fee: 1,
    transactionAmount: 10,
    chargeCustomer: false,
    customerName: 'J',
    serviceName: 'URA',
    status: 'COMPLETED',
    statusMessage: 'ok',
    billerPaymentId: 'b-1',
  };
  const completed = { type: PAYMENTS_INTEGRATION_EVENTS.completed, data: { payment, completedAt: T0 } };

  it('accepts well-formed events, a null where the schema allows one', () => {
    for (const event of [
      toppedUp,
      credited,
      rejected,
      completed,
      { ...completed, data: { ...completed.data, payment: { ...payment, billerPaymentId: null } } },
    ])
      expect(eventSchemaErrors(event)).toEqual([]);
  });

  it.each<[string, { type: string; data: unknown }]>([
    ['a missing required field', { ...rejected, data: { ...rejected.data, reason: undefined } }],
    ['an unknown property', { ...rejected, data: { ...rejected.data, secretKey: 'sk_test_x' } }],
    ['a PRN with a letter', { ...rejected, data: { ...rejected.data, prn: '225000012345A' } }],
    ['a reason code outside the enum', { ...rejected, data: { ...rejected.data, reasonCode: 'TOO_LATE' } }],
    [
      'a fractional amount in a transfer',
      { ...toppedUp, data: { ...toppedUp.data, transfer: { ...transfer, amount: 1.5 } } },
    ],
    ['a zero transfer', { ...toppedUp, data: { ...toppedUp.data, transfer: { ...transfer, amount: 0 } } }],
    [
      'an account of no known kind',
      { ...toppedUp, data: { ...toppedUp.data, transfer: { ...transfer, debitAccount: 'cash:UGX' } } },
    ],
    ['a credit without transfers', { ...credited, data: { ...credited.data, transfers: [] } }],
    [
      'a malformed transfer in the list',
      { ...credited, data: { ...credited.data, transfers: [{ ...transfer, currency: 'ugx' }] } },
    ],
    [
      'a number where a string or null belongs',
      { ...completed, data: { ...completed.data, payment: { ...payment, billerPaymentId: 7 } } },
    ],
    [
      'a status outside the enum',
      { ...completed, data: { ...completed.data, payment: { ...payment, status: 'CANCELLED' } } },
    ],
    ['a date that is not a date-time', { ...completed, data: { ...completed.data, completedAt: 'yesterday' } }],
    ['an unknown event type', { type: 'payments.Exploded', data: {} }],
  ])('rejects an event with %s', (_name, broken) => {
    expect(eventSchemaErrors(broken).length).toBeGreaterThan(0);
  });
});
