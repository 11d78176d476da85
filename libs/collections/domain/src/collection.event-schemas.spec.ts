/**
 * The Collection aggregate, pure decide/evolve (fixtures in collection-test-setup.ts). This file:
 * the event declarations, which every other Collection spec checks each decided event against:
 * one per event type, and they refuse what a stored collection event must never hold.
 */
import { COLLECTION_EVENT_SCHEMAS, COLLECTION_EVENT_TYPES as EVENTS } from './events';
import { eventSchemaErrors, initiatedData, T0 } from './collection-test-setup';

describe('the collection event declarations', () => {
  it('declare every event type', () => {
    expect(Object.keys(COLLECTION_EVENT_SCHEMAS).sort()).toEqual(Object.values(EVENTS).sort());
  });

  const good = { type: EVENTS.initiated, data: initiatedData('MOBILE_MONEY') };
  const goodCancel = {
    type: EVENTS.cancelled,
    data: { internalReference: 'PG1', reason: 'CUSTOMER_DECLINED', statusMessage: 'x', cancelledAt: T0 },
  };

  it('accepts well-formed events', () => {
    expect(eventSchemaErrors(good)).toEqual([]);
    expect(eventSchemaErrors(goodCancel)).toEqual([]);
  });

  it.each<[string, { type: string; data: Record<string, unknown> }]>([
    ['a missing required field', { ...good, data: { ...good.data, internalReference: undefined } }],
    ['an unknown property', { ...good, data: { ...good.data, cardNumber: '4242424242424242' } }],
    ['a string where an integer belongs', { ...good, data: { ...good.data, requestAmount: '81000' } }],
    ['a fractional amount', { ...good, data: { ...good.data, fee: 12.5 } }],
    ['a negative amount', { ...good, data: { ...good.data, totalCredit: -1 } }],
    ['id 0 (minimum 1)', { ...good, data: { ...good.data, id: 0 } }],
    ['an empty required text', { ...good, data: { ...good.data, customerName: '' } }],
    ['a currency off its pattern', { ...good, data: { ...good.data, currency: 'ugx' } }],
    ['an msisdn with a plus', { ...good, data: { ...good.data, msisdn: '+256772000001' } }],
    ['a non-boolean flag', { ...good, data: { ...good.data, chargeCustomer: 'false' } }],
    ['a method outside the enum', { ...good, data: { ...good.data, transactionMethod: 'BANK' } }],
    ['a date that is not a date-time', { ...good, data: { ...good.data, initiatedAt: '01/03/2025 10:00' } }],
    ['a reason outside the enum', { ...goodCancel, data: { ...goodCancel.data, reason: 'TIMEOUT' } }],
    ['an unknown event type', { type: 'CollectionExploded', data: {} }],
  ])('rejects an event with %s', (_name, broken) => {
    expect(eventSchemaErrors(broken).length).toBeGreaterThan(0);
  });
});
