/**
 * The merchant-facing collections API and the admin API (docs/api.md) against one in-process
 * Paygate on PGlite (setup in api-test-setup.ts). This file: request bodies (media types, size,
 * malformed JSON) and initialize's field rules: a refused request answers 4xx naming each bad
 * field and writes nothing.
 */
import type { RecordedEvent } from '@paygate/event-store';
import { cardRequest, mobileMoneyRequest } from '@paygate/testing';
import { as, expectEnvelope, expectFieldErrors, SILENT_MTN, useApiPaygate, type Json } from './api-test-setup';

describe('collections API (docs/api.md)', () => {
  const { api, http, collectionEvents } = useApiPaygate();

  describe('request bodies', () => {
    let before: number;
    beforeAll(async () => {
      before = (await collectionEvents()).length;
    });

    it.each(['/v1/collections/initialize', '/v1/collections/confirm'])('%s: text/plain answers 415', async (path) => {
      const answer = await http('POST', path, {
        headers: as(api.client, { 'content-type': 'text/plain' }),
        body: JSON.stringify(mobileMoneyRequest()),
      });
      expectEnvelope(answer, 415);
    });

    it.each(['/v1/collections/initialize', '/v1/collections/confirm'])(
      '%s: application/x-www-form-urlencoded answers 415',
      async (path) => {
        const form = new URLSearchParams(mobileMoneyRequest() as Record<string, string>).toString();
        const answer = await http('POST', path, {
          headers: as(api.client, { 'content-type': 'application/x-www-form-urlencoded' }),
          body: form,
        });
        expectEnvelope(answer, 415);
      },
    );

    it.each([
      ['application/json-patch+json', 'application/json-patch+json'],
      ['application/xml', 'application/xml'],
      ['multipart/form-data', 'multipart/form-data; boundary=x'],
    ])('a JSON text sent as %s answers 415', async (_label, type) => {
      for (const path of ['/v1/collections/initialize', '/v1/collections/confirm']) {
        const answer = await http('POST', path, {
          headers: as(api.client, { 'content-type': type }),
          body: JSON.stringify(mobileMoneyRequest()),
        });
        expectEnvelope(answer, 415);
      }
    });

    it('a body without any content-type answers 415', async () => {
      for (const path of ['/v1/collections/initialize', '/v1/collections/confirm']) {
        const answer = await http('POST', path, {
          headers: as(api.client),
          body: new TextEncoder().encode(JSON.stringify(mobileMoneyRequest())),
        });
        expectEnvelope(answer, 415);
      }
    });

    it.each(['/v1/collections/initialize', '/v1/collections/confirm'])(
      '%s: a body over 64 KiB answers 413',
      async (path) => {
        const json = JSON.stringify({ ...mobileMoneyRequest(), description: 'x'.repeat(70_000) });
        expect(Buffer.byteLength(json)).toBeGreaterThan(64 * 1024);
        const answer = await http('POST', path, {
          headers: as(api.client, { 'content-type': 'application/json' }),
          body: json,
        });
        expectEnvelope(answer, 413);
      },
    );

    it('a body of exactly 64 KiB is read (and then refused for its over-long description, 400)', async () => {
      const base = JSON.stringify({ ...mobileMoneyRequest(), description: '' });
      const json = JSON.stringify({
        ...mobileMoneyRequest(),
        description: 'x'.repeat(64 * 1024 - Buffer.byteLength(base)),
      });
      expect(Buffer.byteLength(json)).toBe(64 * 1024);
      const answer = await http('POST', '/v1/collections/initialize', {
        headers: as(api.client, { 'content-type': 'application/json' }),
        body: json,
      });
      expectFieldErrors(answer, ['description']);
    });

    it.each([
      ['truncated', '{"merchant_reference":'],
      ['single quotes', "{'merchant_reference':'a'}"],
      ['trailing comma', '{"a":1,}'],
      ['bare word', 'hello'],
      ['empty', ''],
    ])('%s JSON answers 400', async (_label, raw) => {
      for (const path of ['/v1/collections/initialize', '/v1/collections/confirm']) {
        const answer = await http('POST', path, {
          headers: as(api.client, { 'content-type': 'application/json' }),
          body: raw,
        });
        expectEnvelope(answer, 400);
      }
    });

    it.each([
      ['an array', '[]'],
      ['an array of a valid body', JSON.stringify([mobileMoneyRequest()])],
      ['a string', '"hello"'],
      ['null', 'null'],
      ['a number', '42'],
      ['true', 'true'],
    ])('a JSON body that is %s answers 400', async (_label, raw) => {
      for (const path of ['/v1/collections/initialize', '/v1/collections/confirm']) {
        const answer = await http('POST', path, {
          headers: as(api.client, { 'content-type': 'application/json' }),
          body: raw,
        });
        expectEnvelope(answer, 400);
      }
    });

    it('application/json with a charset parameter is accepted', async () => {
      const answer = await api.client.request('POST', '/v1/collections/initialize', {
        raw: JSON.stringify(mobileMoneyRequest({ msisdn: SILENT_MTN })),
        headers: { 'content-type': 'application/json; charset=utf-8' },
      });
      expectEnvelope(answer, 202);
      before += 2; // CollectionInitiated and the CollectionOpened it publishes
    });

    it('media types are case-insensitive: APPLICATION/JSON is JSON (RFC 9110)', async () => {
      const answer = await api.client.request('POST', '/v1/collections/initialize', {
        raw: JSON.stringify(mobileMoneyRequest({ msisdn: SILENT_MTN })),
        headers: { 'content-type': 'Application/JSON' },
      });
      expectEnvelope(answer, 202);
      before += 2; // CollectionInitiated and the CollectionOpened it publishes
    });

    it('wrote no collection event for any refused body', async () => {
      expect((await collectionEvents()).length).toBe(before);
    });
  });

  describe('initialize validation: 400 with data.errors naming each bad field', () => {
    let before: RecordedEvent[];
    beforeAll(async () => {
      before = await collectionEvents();
    });

    const without = (body: Json, ...fields: string[]) => {
      const copy = { ...body };
      for (const field of fields) delete copy[field];
      return copy;
    };
    const momo = (overrides: Json = {}) => mobileMoneyRequest({ msisdn: SILENT_MTN, ...overrides });

    it.each<[string, () => Json, string[], string?]>([
      ['merchant_reference too long (65)', () => momo({ merchant_reference: 'r'.repeat(65) }), ['merchant_reference']],
      [
        'merchant_reference with a space and #',
        () => momo({ merchant_reference: 'order 1001#' }),
        ['merchant_reference'],
      ],
      [
        'merchant_reference with a non-ASCII letter',
        () => momo({ merchant_reference: 'ordér-1' }),
        ['merchant_reference'],
      ],
      ['merchant_reference empty', () => momo({ merchant_reference: '' }), ['merchant_reference']],
      ['merchant_reference missing', () => without(momo(), 'merchant_reference'), ['merchant_reference']],
      ['merchant_reference a number', () => momo({ merchant_reference: 1001 }), ['merchant_reference']],
      [
        'merchant_reference "auto " with a trailing space',
        () => momo({ merchant_reference: 'auto ' }),
        ['merchant_reference'],
      ],
      ['transaction_method unknown', () => momo({ transaction_method: 'BANK' }), ['transaction_method']],
      ['transaction_method lowercase', () => momo({ transaction_method: 'mobile_money' }), ['transaction_method']],
      ['transaction_method missing', () => without(momo(), 'transaction_method'), ['transaction_method']],
      [
        'transaction_method not the provider’s',
        () => cardRequest({ transaction_method: 'MOBILE_MONEY', msisdn: SILENT_MTN }),
        ['transaction_method'],
      ],
      [
        'transaction_method CARD for a mobile money provider',
        () => momo({ transaction_method: 'CARD', redirect_url: 'https://shop.example.com/r' }),
        ['transaction_method'],
      ],
      ['provider_code unknown', () => momo({ provider_code: 'mpesa_ke' }), ['provider_code']],
      ['provider_code missing', () => without(momo(), 'provider_code'), ['provider_code']],
      ['currency lowercase', () => momo({ currency: 'ugx' }), ['currency']],
      ['currency of another country', () => momo({ currency: 'KES' }), ['currency']],
      ['currency missing', () => without(momo(), 'currency'), ['currency']],
      ['amount a string', () => momo({ amount: '81000' }), ['amount']],
      ['amount 0', () => momo({ amount: 0 }), ['amount']],
      ['amount negative', () => momo({ amount: -81000 }), ['amount']],
      ['amount 100.5 UGX', () => momo({ amount: 100.5 }), ['amount']],
      ['amount 81000.5 UGX (decimals)', () => momo({ amount: 81000.5 }), ['amount']],
      ['amount below the provider minimum', () => momo({ amount: 499 }), ['amount']],
      ['amount above the provider maximum', () => momo({ amount: 5_000_001 }), ['amount']],
      [
        'amount above airtel’s maximum',
        () => momo({ provider_code: 'airtel_money_ug', msisdn: '256752000004', amount: 2_000_001 }),
        ['amount'],
      ],
      ['card amount below its minimum', () => cardRequest({ amount: 999 }), ['amount']],
      ['amount missing', () => without(momo(), 'amount'), ['amount']],
      ['amount null', () => momo({ amount: null }), ['amount']],
      ['amount 1e308', () => momo({ amount: 1e308 }), ['amount']],
      [
        'msisdn of another network',
        () => momo({ msisdn: '256701234567' }),
        ['msisdn'],
        'msisdn 256701234567 is not valid for provider mtn_momo_ug',
      ],
      [
        'msisdn of MTN for airtel',
        () => momo({ provider_code: 'airtel_money_ug', msisdn: '256772000001' }),
        ['msisdn'],
        'msisdn 256772000001 is not valid for provider airtel_money_ug',
      ],
      ['msisdn without country code', () => momo({ msisdn: '0772000001' }), ['msisdn']],
      ['msisdn with +', () => momo({ msisdn: '+256772000001' }), ['msisdn']],
      ['msisdn too short', () => momo({ msisdn: '25677200000' }), ['msisdn']],
      ['msisdn too long', () => momo({ msisdn: '2567720000011' }), ['msisdn']],
      ['msisdn a number', () => momo({ msisdn: 256772000001 }), ['msisdn']],
      ['msisdn missing for MOBILE_MONEY', () => without(momo(), 'msisdn'), ['msisdn']],
      ['customer_name missing', () => without(momo(), 'customer_name'), ['customer_name']],
      ['customer_name 101 characters', () => momo({ customer_name: 'N'.repeat(101) }), ['customer_name']],
      ['customer_name blank', () => momo({ customer_name: '   ' }), ['customer_name']],
      ['customer_name a number', () => momo({ customer_name: 42 }), ['customer_name']],
      ['customer_email invalid', () => momo({ customer_email: 'jane.example.com' }), ['customer_email']],
      ['customer_email a number', () => momo({ customer_email: 7 }), ['customer_email']],
      ['description 256 characters', () => momo({ description: 'd'.repeat(256) }), ['description']],
      ['description an object', () => momo({ description: { text: 'x' } }), ['description']],
      ['charge_customer "true"', () => momo({ charge_customer: 'true' }), ['charge_customer']],
      ['charge_customer 1', () => momo({ charge_customer: 1 }), ['charge_customer']],
      ['require_confirmation "false"', () => momo({ require_confirmation: 'false' }), ['require_confirmation']],
      ['require_confirmation 0', () => momo({ require_confirmation: 0 }), ['require_confirmation']],
      ['redirect_url missing for CARD', () => without(cardRequest(), 'redirect_url'), ['redirect_url']],
      ['redirect_url ftp', () => cardRequest({ redirect_url: 'ftp://shop.example.com/paid' }), ['redirect_url']],
      ['redirect_url relative', () => cardRequest({ redirect_url: '/paid?order=7' }), ['redirect_url']],
      ['redirect_url without scheme', () => cardRequest({ redirect_url: 'shop.example.com/paid' }), ['redirect_url']],
      ['redirect_url javascript:', () => cardRequest({ redirect_url: 'javascript:alert(1)' }), ['redirect_url']],
      ['an unknown field', () => momo({ callback_url: 'https://shop.example.com/cb' }), ['callback_url']],
      ['a misspelt optional field', () => momo({ charge_costumer: true }), ['charge_costumer']],
      ['an unknown field named constructor', () => momo({ constructor: {} }), ['constructor']],
      ['an unknown field named toString', () => momo({ toString: 'x' }), ['toString']],
      ['an unknown field named hasOwnProperty', () => momo({ hasOwnProperty: 1 }), ['hasOwnProperty']],
    ])('%s', async (...row) => {
      // Rows have 3 or 4 entries: a rest parameter keeps jest from passing `done` as the message.
      const [, body, fields, message] = row;
      const answer = await api.client.initialize(body());
      expectFieldErrors(answer, fields, message);
    });

    it('names every bad field of a request with several', async () => {
      const body = without(
        momo({
          merchant_reference: '',
          currency: 'ugx',
          amount: '81000',
          customer_email: 'nope',
          charge_customer: 'yes',
          extra: 1,
        }),
        'customer_name',
      );
      const answer = await api.client.initialize(body);
      expectFieldErrors(answer, [
        'merchant_reference',
        'currency',
        'amount',
        'customer_email',
        'charge_customer',
        'extra',
        'customer_name',
      ]);
    });

    it('names catalogue errors together: method, currency, amount and msisdn', async () => {
      const answer = await api.client.initialize(
        momo({
          provider_code: 'airtel_money_ug',
          transaction_method: 'CARD',
          redirect_url: 'https://shop.example.com/r',
          currency: 'KES',
          amount: 3_000_000,
          msisdn: '256772000001',
        }),
      );
      expectFieldErrors(answer, ['transaction_method', 'currency', 'amount']);
    });

    it('an empty object names every required field', async () => {
      const answer = await api.client.initialize({});
      expectFieldErrors(answer, [
        'merchant_reference',
        'transaction_method',
        'provider_code',
        'currency',
        'amount',
        'customer_name',
      ]);
    });

    it('wrote no collection event for any of them', async () => {
      expect(await collectionEvents()).toEqual(before);
    });
  });
});
