/**
 * The merchant-facing collections API and the admin API (docs/api.md) against one in-process
 * Paygate on PGlite (setup in api-test-setup.ts). This file: merchant authentication (public-key,
 * secret-key, suspension, other merchants' references), the admin API (merchants, keys) and
 * secrets kept out of storage.
 */
import { cardRequest, mobileMoneyRequest, PaygateClient, TEST_ADMIN_TOKEN } from '@paygate/testing';
import {
  as,
  expectEnvelope,
  expectFieldErrors,
  initialized,
  SILENT_MTN,
  useApiPaygate,
  type Json,
} from './api-test-setup';

describe('collections API (docs/api.md)', () => {
  const { api, http, admin, collectionEvents } = useApiPaygate();

  describe('authentication', () => {
    let reference: string;
    let merchantReference: string;
    beforeAll(async () => {
      const data = await initialized(api.client, mobileMoneyRequest({ msisdn: SILENT_MTN }));
      reference = data.internal_reference as string;
      merchantReference = data.merchant_reference as string;
    });

    it.each([
      ['without public-key', {}],
      ['with an unknown public-key', { 'public-key': 'pk_unknown_0123456789' }],
      ['with an empty public-key', { 'public-key': '' }],
    ])('initialize, confirm, GET and payment-providers %s answer 401', async (_label, headers) => {
      const before = (await collectionEvents()).length;
      expectEnvelope(await http('POST', '/v1/collections/initialize', { headers, json: mobileMoneyRequest() }), 401);
      expectEnvelope(
        await http('POST', '/v1/collections/confirm', { headers, json: { internal_reference: reference } }),
        401,
      );
      expectEnvelope(
        await http('GET', `/v1/collections/${reference}`, {
          headers: { ...headers, 'secret-key': api.client.merchant.secretKey },
        }),
        401,
      );
      expectEnvelope(
        await http('GET', `/v1/collections?merchant_reference=${merchantReference}`, {
          headers: { ...headers, 'secret-key': api.client.merchant.secretKey },
        }),
        401,
      );
      expectEnvelope(await http('GET', '/v1/payment-providers', { headers }), 401);
      expect((await collectionEvents()).length).toBe(before);
    });

    it('GET without secret-key answers 401', async () => {
      expectEnvelope(await http('GET', `/v1/collections/${reference}`, { headers: as(api.client) }), 401);
      expectEnvelope(
        await http('GET', `/v1/collections?merchant_reference=${merchantReference}`, { headers: as(api.client) }),
        401,
      );
    });

    it.each([
      ['a wrong secret-key', () => 'sk_wrong_0123456789'],
      ['another merchant’s secret-key', () => api.other.merchant.secretKey],
      ['the public key as secret-key', () => api.client.merchant.publicKey],
    ])('GET with %s answers 401', async (_label, secret) => {
      const headers = as(api.client, { 'secret-key': secret() });
      expectEnvelope(await http('GET', `/v1/collections/${reference}`, { headers }), 401);
      expectEnvelope(await http('GET', `/v1/collections?merchant_reference=${merchantReference}`, { headers }), 401);
    });

    it('a suspended merchant gets 403 everywhere, and is served again once active', async () => {
      const merchant = await PaygateClient.withNewMerchant(api.paygate.url, TEST_ADMIN_TOKEN, 'Suspended merchant');
      const data = await initialized(merchant, mobileMoneyRequest({ msisdn: SILENT_MTN }));
      expectEnvelope(await admin('PATCH', `/${merchant.merchant.id}`, { status: 'suspended' }), 200);
      const before = (await collectionEvents()).length;
      expectEnvelope(await merchant.initialize(mobileMoneyRequest({ msisdn: SILENT_MTN })), 403);
      expectEnvelope(await merchant.confirm(data.internal_reference as string), 403);
      expectEnvelope(await merchant.collection(data.internal_reference as string), 403);
      expectEnvelope(await merchant.request('GET', '/v1/payment-providers'), 403);
      expect((await collectionEvents()).length).toBe(before);
      expectEnvelope(await admin('PATCH', `/${merchant.merchant.id}`, { status: 'active' }), 200);
      expectEnvelope(await merchant.initialize(mobileMoneyRequest({ msisdn: SILENT_MTN })), 202);
    });

    it('another merchant’s internal_reference is answered exactly like an unknown one (404)', async () => {
      const unknown = await api.other.collection('PG0000000000000000000000ZZ');
      const foreign = await api.other.collection(reference);
      expectEnvelope(unknown, 404);
      expect(foreign).toEqual(unknown);
    });

    it('another merchant’s merchant_reference is answered exactly like an unknown one (404)', async () => {
      const unknown = await api.other.request('GET', `/v1/collections?merchant_reference=never-used-${Date.now()}`, {
        secret: true,
      });
      const foreign = await api.other.request(
        'GET',
        `/v1/collections?merchant_reference=${encodeURIComponent(merchantReference)}`,
        { secret: true },
      );
      expectEnvelope(unknown, 404);
      expect(foreign).toEqual(unknown);
    });
  });

  describe('admin API', () => {
    it.each([
      ['no authorization', undefined],
      ['a wrong bearer token', 'Bearer wrong-token-0123456789'],
      ['the admin token without Bearer', TEST_ADMIN_TOKEN],
      ['Basic auth', `Basic ${Buffer.from(`admin:${TEST_ADMIN_TOKEN}`).toString('base64')}`],
      ['a merchant public key', 'Bearer pk'],
    ])('%s answers 401 on every admin endpoint', async (_label, authorization) => {
      const headers: Record<string, string> = authorization ? { authorization } : {};
      if (authorization === 'Bearer pk') headers.authorization = `Bearer ${api.client.merchant.publicKey}`;
      const id = api.client.merchant.id;
      expectEnvelope(await http('POST', '/admin/v1/merchants', { headers, json: { name: 'Intruder' } }), 401);
      expectEnvelope(await http('GET', `/admin/v1/merchants/${id}`, { headers }), 401);
      expectEnvelope(await http('PATCH', `/admin/v1/merchants/${id}`, { headers, json: { status: 'suspended' } }), 401);
      expectEnvelope(await http('POST', `/admin/v1/merchants/${id}/keys`, { headers, json: { keys: ['api'] } }), 401);
      // Nothing changed.
      expectEnvelope(await api.client.initialize(mobileMoneyRequest({ msisdn: SILENT_MTN })), 202);
    });

    it('creates a merchant (201) showing its keys once; GET never shows secrets', async () => {
      const created = await admin('POST', '', {
        name: 'Kampala Books',
        collection_callback_url: 'https://books.example.com/cb/collections',
        service_payments_callback_url: 'https://books.example.com/cb/payments',
      });
      expectEnvelope(created, 201);
      const data = created.body.data;
      expect(data).toMatchObject({
        id: expect.any(String),
        name: 'Kampala Books',
        public_key: expect.any(String),
        secret_key: expect.any(String),
        signing_key: expect.any(String),
        collection_callback_url: 'https://books.example.com/cb/collections',
        service_payments_callback_url: 'https://books.example.com/cb/payments',
      });
      expect(data.signing_key).toMatch(/^[A-Za-z0-9]+$/);
      expect(new Set([data.public_key, data.secret_key, data.signing_key]).size).toBe(3);
      const fetched = await admin('GET', `/${data.id as string}`);
      expectEnvelope(fetched, 200);
      expect(fetched.body.data).toMatchObject({
        id: data.id,
        name: 'Kampala Books',
        public_key: data.public_key,
        collection_callback_url: 'https://books.example.com/cb/collections',
      });
      expect(fetched.body.data).not.toHaveProperty('secret_key');
      expect(fetched.body.data).not.toHaveProperty('signing_key');
      expect(fetched.text).not.toContain(data.secret_key as string);
      expect(fetched.text).not.toContain(data.signing_key as string);
      // The keys work.
      const merchant = new PaygateClient(api.paygate.url, {
        id: data.id as string,
        publicKey: data.public_key as string,
        secretKey: data.secret_key as string,
        signingKey: data.signing_key as string,
      });
      const ack = await initialized(merchant, mobileMoneyRequest({ msisdn: SILENT_MTN }));
      expectEnvelope(await merchant.collection(ack.internal_reference as string), 200);
    });

    it.each<[string, Json, string]>([
      ['no name', {}, 'name'],
      ['an empty name', { name: '' }, 'name'],
      ['a blank name', { name: '   ' }, 'name'],
      ['a 101-character name', { name: 'n'.repeat(101) }, 'name'],
      [
        'a callback URL that is not http(s)',
        { name: 'M', collection_callback_url: 'ftp://x.example.com' },
        'collection_callback_url',
      ],
      ['a relative callback URL', { name: 'M', service_payments_callback_url: '/cb' }, 'service_payments_callback_url'],
      ['an unknown field', { name: 'M', secret_key: 'mine' }, 'secret_key'],
    ])('create with %s answers 400', async (_label, body, field) => {
      expectFieldErrors(await admin('POST', '', body), [field]);
    });

    it('PATCH changes callback URLs and status', async () => {
      const merchant = await PaygateClient.withNewMerchant(api.paygate.url, TEST_ADMIN_TOKEN, 'Patched merchant');
      const patched = await admin('PATCH', `/${merchant.merchant.id}`, {
        collection_callback_url: 'https://patched.example.com/c',
        service_payments_callback_url: 'https://patched.example.com/p',
      });
      expectEnvelope(patched, 200);
      expect(patched.body.data).toMatchObject({
        collection_callback_url: 'https://patched.example.com/c',
        service_payments_callback_url: 'https://patched.example.com/p',
        status: 'active',
      });
      expect(patched.body.data).not.toHaveProperty('secret_key');
      const cleared = await admin('PATCH', `/${merchant.merchant.id}`, { collection_callback_url: null });
      expect(cleared.body.data).toMatchObject({
        collection_callback_url: null,
        service_payments_callback_url: 'https://patched.example.com/p',
      });
      const suspended = await admin('PATCH', `/${merchant.merchant.id}`, { status: 'suspended' });
      expect(suspended.body.data).toMatchObject({ status: 'suspended' });
      expect((await admin('GET', `/${merchant.merchant.id}`)).body.data).toMatchObject({
        status: 'suspended',
        service_payments_callback_url: 'https://patched.example.com/p',
      });
      expectEnvelope(await merchant.initialize(mobileMoneyRequest({ msisdn: SILENT_MTN })), 403);
    });

    it.each<[string, Json, string]>([
      ['a bad collection URL', { collection_callback_url: 'not a url' }, 'collection_callback_url'],
      ['a javascript: URL', { service_payments_callback_url: 'javascript:alert(1)' }, 'service_payments_callback_url'],
      ['an unknown status', { status: 'closed' }, 'status'],
      ['an unknown field', { name: 'Renamed', public_key: 'mine' }, 'public_key'],
    ])('PATCH with %s answers 400 and changes nothing', async (_label, body, field) => {
      const before = await admin('GET', `/${api.other.merchant.id}`);
      expectFieldErrors(await admin('PATCH', `/${api.other.merchant.id}`, body), [field]);
      expect((await admin('GET', `/${api.other.merchant.id}`)).body).toEqual(before.body);
    });

    it('POST keys {"keys":["api"]}: the old public key answers 401, the new keys work, the signing key stays', async () => {
      const merchant = await PaygateClient.withNewMerchant(api.paygate.url, TEST_ADMIN_TOKEN, 'Rotating merchant');
      const ack = await initialized(merchant, mobileMoneyRequest({ msisdn: SILENT_MTN }));
      const issued = await admin('POST', `/${merchant.merchant.id}/keys`, { keys: ['api'] });
      expectEnvelope(issued, 201);
      const keys = issued.body.data;
      expect(keys.public_key).not.toBe(merchant.merchant.publicKey);
      expect(keys.secret_key).not.toBe(merchant.merchant.secretKey);
      expect(keys.signing_key).toBe(merchant.merchant.signingKey);
      expectEnvelope(await merchant.initialize(mobileMoneyRequest({ msisdn: SILENT_MTN })), 401);
      expectEnvelope(await merchant.collection(ack.internal_reference as string), 401);
      const rotated = new PaygateClient(api.paygate.url, {
        id: merchant.merchant.id,
        publicKey: keys.public_key as string,
        secretKey: keys.secret_key as string,
        signingKey: keys.signing_key as string,
      });
      expectEnvelope(await rotated.initialize(mobileMoneyRequest({ msisdn: SILENT_MTN })), 202);
      const found = await rotated.collection(ack.internal_reference as string);
      expectEnvelope(found, 200);
      // The old secret with the new public key is refused too.
      const mixed = await http('GET', `/v1/collections/${ack.internal_reference as string}`, {
        headers: { 'public-key': keys.public_key as string, 'secret-key': merchant.merchant.secretKey },
      });
      expectEnvelope(mixed, 401);
    });

    it('POST keys {"keys":["signing"]} changes the signing key only', async () => {
      const merchant = await PaygateClient.withNewMerchant(api.paygate.url, TEST_ADMIN_TOKEN, 'Signing merchant');
      const issued = await admin('POST', `/${merchant.merchant.id}/keys`, { keys: ['signing'] });
      expectEnvelope(issued, 201);
      expect(issued.body.data).toMatchObject({
        public_key: merchant.merchant.publicKey,
        secret_key: merchant.merchant.secretKey,
      });
      expect(issued.body.data.signing_key).toEqual(expect.any(String));
      expect(issued.body.data.signing_key).not.toBe(merchant.merchant.signingKey);
      const ack = await initialized(merchant, mobileMoneyRequest({ msisdn: SILENT_MTN }));
      expectEnvelope(await merchant.collection(ack.internal_reference as string), 200);
    });

    it('POST keys {"keys":["api","signing"]} changes all three', async () => {
      const merchant = await PaygateClient.withNewMerchant(api.paygate.url, TEST_ADMIN_TOKEN, 'All keys merchant');
      const issued = await admin('POST', `/${merchant.merchant.id}/keys`, { keys: ['api', 'signing'] });
      expectEnvelope(issued, 201);
      expect(issued.body.data.public_key).not.toBe(merchant.merchant.publicKey);
      expect(issued.body.data.secret_key).not.toBe(merchant.merchant.secretKey);
      expect(issued.body.data.signing_key).not.toBe(merchant.merchant.signingKey);
    });

    it('an unknown merchant answers 404 on GET, PATCH and keys', async () => {
      expectEnvelope(await admin('GET', '/mer_doesnotexist0000'), 404);
      expectEnvelope(await admin('PATCH', '/mer_doesnotexist0000', { status: 'suspended' }), 404);
      expectEnvelope(await admin('POST', '/mer_doesnotexist0000/keys', { keys: ['api'] }), 404);
    });

    it.each<[string, unknown]>([
      ['no keys field', {}],
      ['an empty list', { keys: [] }],
      ['an unknown kind', { keys: ['master'] }],
      ['a string instead of a list', { keys: 'api' }],
      ['a list with a number', { keys: ['api', 1] }],
      ['null', { keys: null }],
    ])('POST keys with %s answers 400 and changes nothing', async (_label, body) => {
      const merchant = await PaygateClient.withNewMerchant(api.paygate.url, TEST_ADMIN_TOKEN, 'Bad keys merchant');
      const answer = await admin('POST', `/${merchant.merchant.id}/keys`, body);
      expectFieldErrors(answer, ['keys']);
      expectEnvelope(await merchant.initialize(mobileMoneyRequest({ msisdn: SILENT_MTN })), 202);
    });
  });

  describe('secrets at rest', () => {
    it('keeps secret and signing keys out of every table column and every event', async () => {
      const created = await admin('POST', '', {
        name: 'Secretive merchant',
        collection_callback_url: 'https://secretive.example.com/cb',
      });
      expectEnvelope(created, 201);
      const { id, public_key, secret_key, signing_key } = created.body.data as Record<string, string>;
      const merchant = new PaygateClient(api.paygate.url, {
        id,
        publicKey: public_key,
        secretKey: secret_key,
        signingKey: signing_key,
      });
      const momo = await initialized(merchant, mobileMoneyRequest({ msisdn: SILENT_MTN }));
      expectEnvelope(await merchant.confirm(momo.internal_reference as string), 202);
      const card = await initialized(merchant, cardRequest({ require_confirmation: false }));
      expectEnvelope(await merchant.collection(card.internal_reference as string), 200);
      // Rotate the signing key too: neither the old nor the new one may be stored in clear.
      const rotated = await admin('POST', `/${id}/keys`, { keys: ['signing'] });
      const secrets = [secret_key, signing_key, rotated.body.data.signing_key as string];

      const rows = await api.paygate.infrastructure.sql.query<Record<string, unknown>>(
        'select * from merchants where id = $1',
        [id],
      );
      expect(rows).toHaveLength(1);
      for (const [column, value] of Object.entries(rows[0])) {
        for (const secret of secrets)
          expect({ column, leaks: String(value).includes(secret) }).toEqual({ column, leaks: false });
      }

      const tables = await api.paygate.infrastructure.sql.query<{ table_schema: string; table_name: string }>(
        "select table_schema, table_name from information_schema.tables where table_schema not in ('pg_catalog', 'information_schema') and table_type = 'BASE TABLE'",
      );
      expect(tables.length).toBeGreaterThan(1);
      for (const { table_schema, table_name } of tables) {
        const dump = await api.paygate.infrastructure.sql.query<{ row: string }>(
          `select t::text as row from "${table_schema}"."${table_name}" t`,
        );
        for (const { row } of dump)
          for (const secret of secrets)
            expect({ table_name, leaks: row.includes(secret) }).toEqual({ table_name, leaks: false });
      }

      const events = await api.paygate.infrastructure.store.readAll({ maxCount: 1_000_000 });
      const collectionStreams = events.filter((event) => event.streamName.startsWith('collection-'));
      expect(
        collectionStreams.some((event) => event.streamName === `collection-${momo.internal_reference as string}`),
      ).toBe(true);
      for (const event of events) {
        const text = JSON.stringify({ data: event.data, metadata: event.metadata });
        for (const secret of secrets)
          expect({ stream: event.streamName, type: event.type, leaks: text.includes(secret) }).toEqual({
            stream: event.streamName,
            type: event.type,
            leaks: false,
          });
      }
    });
  });
});
