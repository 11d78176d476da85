/**
 * The merchant-facing collections API and the admin API (docs/api.md) against one in-process
 * Paygate on PGlite (setup in api-test-setup.ts). This file: the reads: a collection by
 * internal_reference or merchant_reference, and the payment providers list with its filters.
 */
import { ACKNOWLEDGED_MOMO_RECORD, mobileMoneyRequest } from '@paygate/testing';
import {
  expectEnvelope,
  expectFieldErrors,
  initialized,
  ISO_TIME,
  SILENT_MTN,
  useApiPaygate,
  withSecret,
  type Json,
} from './api-test-setup';

describe('collections API (docs/api.md)', () => {
  const { api, http } = useApiPaygate();

  describe('transaction record', () => {
    let body: Json;
    let ack: Json;
    beforeAll(async () => {
      body = mobileMoneyRequest({ msisdn: SILENT_MTN, customer_name: 'Grace Namutebi' });
      ack = await initialized(api.client, body);
    });

    const expectRecord = (data: Json) => {
      expect(data).toMatchObject({
        id: ack.id,
        merchant_reference: body.merchant_reference,
        internal_reference: ack.internal_reference,
        ...ACKNOWLEDGED_MOMO_RECORD,
        status_message: expect.any(String),
        transaction_method: 'MOBILE_MONEY',
        customer_name: 'Grace Namutebi',
        created_at: expect.stringMatching(ISO_TIME),
        updated_at: expect.stringMatching(ISO_TIME),
      });
    };

    it('GET /v1/collections/{internal_reference} returns the record', async () => {
      const answer = await api.client.collection(ack.internal_reference as string);
      expectEnvelope(answer, 200);
      expectRecord(answer.body.data);
    });

    it('GET /v1/collections?merchant_reference= returns the same record', async () => {
      const byInternal = await api.client.collection(ack.internal_reference as string);
      const answer = await api.client.request(
        'GET',
        `/v1/collections?merchant_reference=${encodeURIComponent(body.merchant_reference as string)}`,
        {
          secret: true,
        },
      );
      expectEnvelope(answer, 200);
      expectRecord(answer.body.data);
      expect(answer.body.data).toEqual(byInternal.body.data);
    });

    it('a reference with URL-special characters is found by merchant_reference', async () => {
      const reference = `a/b:c.d_e-${Date.now()}`;
      const data = await initialized(
        api.client,
        mobileMoneyRequest({ msisdn: SILENT_MTN, merchant_reference: reference }),
      );
      const answer = await api.client.request(
        'GET',
        `/v1/collections?merchant_reference=${encodeURIComponent(reference)}`,
        { secret: true },
      );
      expectEnvelope(answer, 200);
      expect(answer.body.data.internal_reference).toBe(data.internal_reference);
    });

    it('GET /v1/collections?merchant_reference= (empty) answers 400 naming merchant_reference', async () => {
      expectFieldErrors(await api.client.request('GET', '/v1/collections?merchant_reference=', { secret: true }), [
        'merchant_reference',
      ]);
    });

    it('an unknown internal_reference or merchant_reference answers 404', async () => {
      expectEnvelope(await api.client.collection('PG0000000000000000000000ZZ'), 404);
      expectEnvelope(
        await api.client.request('GET', '/v1/collections?merchant_reference=nobody-used-this', { secret: true }),
        404,
      );
    });

    it.each(['%00', 'PG%00'])(
      'GET with %s (NUL, which no reference can hold) answers 400 naming the parameter',
      async (encoded) => {
        const byPath = await api.client.request('GET', `/v1/collections/${encoded}`, { secret: true });
        expectFieldErrors(
          byPath,
          ['internal_reference'],
          'path parameter internal_reference must not contain NUL characters or unpaired UTF-16 surrogates',
        );
        const byQuery = await api.client.request('GET', `/v1/collections?merchant_reference=${encoded}`, {
          secret: true,
        });
        expectFieldErrors(
          byQuery,
          ['merchant_reference'],
          'query parameter merchant_reference must not contain NUL characters or unpaired UTF-16 surrogates',
        );
      },
    );

    it.each(['/v1/collections/%ED%A0%80', '/v1/collections?merchant_reference=%ED%A0%80', '/v1/collections/%E0%A4%A'])(
      'GET %s (not UTF-8) answers 4xx in the envelope',
      async (path) => {
        const answer = await http('GET', path, { headers: withSecret(api.client) });
        expect(answer.status).toBeGreaterThanOrEqual(400);
        expect(answer.status).toBeLessThan(500);
        expectEnvelope(answer, answer.status);
      },
    );

    it('an over-long internal_reference in the path answers 4xx in the envelope', async () => {
      const answer = await http('GET', `/v1/collections/PG${'0'.repeat(200)}`, { headers: withSecret(api.client) });
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
      expectEnvelope(answer, answer.status);
    });
  });

  describe('payment providers', () => {
    it('lists the three providers with the fields docs/api.md lists', async () => {
      const answer = await api.client.request<{ payment_providers: Json[] }>('GET', '/v1/payment-providers');
      expectEnvelope(answer, 200);
      const providers = answer.body.data.payment_providers;
      expect(providers.map((provider) => provider.provider_code).sort()).toEqual([
        'airtel_money_ug',
        'card_ug',
        'mtn_momo_ug',
      ]);
      const byCode = Object.fromEntries(providers.map((provider) => [provider.provider_code, provider]));
      expect(byCode.mtn_momo_ug).toMatchObject({
        provider_name: 'MTN Mobile Money Uganda',
        transaction_method: 'MOBILE_MONEY',
        transaction_currency: 'UGX',
        country_code: 'UG',
        min_amount: 500,
        max_amount: 5_000_000,
      });
      expect(byCode.airtel_money_ug).toMatchObject({
        transaction_method: 'MOBILE_MONEY',
        transaction_currency: 'UGX',
        country_code: 'UG',
        min_amount: 500,
        max_amount: 2_000_000,
      });
      expect(byCode.card_ug).toMatchObject({
        transaction_method: 'CARD',
        transaction_currency: 'UGX',
        country_code: 'UG',
        min_amount: 1000,
        max_amount: 10_000_000,
      });
      for (const provider of providers) {
        for (const field of [
          'provider_code',
          'provider_name',
          'transaction_method',
          'transaction_currency',
          'country_code',
          'min_amount',
          'max_amount',
          'prefixes',
        ]) {
          expect(provider).toHaveProperty(field);
        }
        expect(Array.isArray(provider.prefixes)).toBe(true);
      }
      // Network prefixes, shown with or without the calling code.
      const networkPrefixes = (provider: Json) =>
        (provider.prefixes as string[]).map((prefix) => prefix.replace(/^256/, '')).sort();
      expect(networkPrefixes(byCode.mtn_momo_ug)).toEqual(['76', '77', '78', '79']);
      expect(networkPrefixes(byCode.airtel_money_ug)).toEqual(['70', '74', '75']);
      expect(byCode.card_ug.prefixes).toEqual([]);
    });

    it.each([
      ['?currency=UGX', 3],
      ['?currency=UGX&transaction_type=COLLECTION', 3],
      ['?transaction_type=COLLECTION', 3],
      ['?currency=KES', 0],
    ])('%s lists %i providers', async (query, count) => {
      const answer = await api.client.request<{ payment_providers: Json[] }>('GET', `/v1/payment-providers${query}`);
      expectEnvelope(answer, 200);
      expect(answer.body.data.payment_providers).toHaveLength(count);
    });

    it.each([
      ['?currency=ugx', 'currency'],
      ['?currency=UG', 'currency'],
      ['?transaction_type=PAYOUT', 'transaction_type'],
      ['?transaction_type=collection', 'transaction_type'],
    ])('%s answers 400 naming %s', async (query, field) => {
      expectFieldErrors(await api.client.request('GET', `/v1/payment-providers${query}`), [field]);
    });
  });
});
