/**
 * The Collection aggregate, pure decide/evolve (fixtures in collection-test-setup.ts). This file:
 * The spec's own JSON Schema checker (collection-test-setup.ts), which every other Collection spec
 * runs on each event decide() emits: it must understand the event schemas and reject what they
 * forbid.
 */
import { COLLECTION_EVENT_SCHEMAS } from './event-schemas';
import { COLLECTION_EVENT_TYPES as EVENTS } from './events';
import { eventSchemaErrors, initiatedData, schemaErrors, type Schema, SUPPORTED_KEYWORDS, T0 } from './collection-test-setup';

describe('the spec’s JSON Schema checker', () => {
  it('understands every keyword the event schemas use', () => {
    for (const [type, schema] of Object.entries(COLLECTION_EVENT_SCHEMAS)) {
      expect(() => schemaErrors(schema, {}, type)).not.toThrow();
      for (const property of Object.values(schema['properties'] as Record<string, Schema>)) {
        for (const keyword of Object.keys(property)) expect(SUPPORTED_KEYWORDS.has(keyword)).toBe(true);
      }
    }
  });

  it('has a schema for every event type', () => {
    expect(Object.keys(COLLECTION_EVENT_SCHEMAS).sort()).toEqual(Object.values(EVENTS).sort());
  });

  const good = { type: EVENTS.initiated, data: initiatedData('MOBILE_MONEY') };
  const goodCancel = { type: EVENTS.cancelled, data: { internalReference: 'PG1', reason: 'CUSTOMER_DECLINED', statusMessage: 'x', cancelledAt: T0 } };

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
