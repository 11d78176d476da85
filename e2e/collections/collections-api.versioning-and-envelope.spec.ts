/**
 * The merchant-facing collections API and the admin API (docs/api.md) against one in-process
 * Paygate on PGlite (setup in api-test-setup.ts). This file: every kind of request answered in the
 * envelope, the unversioned and /v1 paths with x-api-version, unknown paths and methods (404,
 * 405), and the OpenAPI document.
 */
import { readFileSync } from 'node:fs';
import { INITIALIZE_FIELDS, INITIALIZE_REQUIRED, mobileMoneyRequest, OPENAPI_DOCUMENT_PATH } from '@paygate/testing';
import {
  as,
  expectEnvelope,
  initialized,
  INTERNAL_REFERENCE,
  SILENT_MTN,
  useApiPaygate,
  type Json,
} from './api-test-setup';

describe('collections API (docs/api.md)', () => {
  const { api, http, admin, collectionEvents } = useApiPaygate();

  describe('envelope and paths', () => {
    it('answers every kind of request in the envelope, code equal to the HTTP status', async () => {
      const accepted = await api.client.initialize(mobileMoneyRequest({ msisdn: SILENT_MTN }));
      expectEnvelope(accepted, 202);
      expectEnvelope(
        await api.client.request('GET', `/v1/collections/${accepted.body.data.internal_reference as string}`, {
          secret: true,
        }),
        200,
      );
      expectEnvelope(await api.client.request('GET', '/v1/payment-providers'), 200);
      expectEnvelope(await api.client.initialize({}), 400);
      expectEnvelope(await http('POST', '/v1/collections/initialize', { json: mobileMoneyRequest() }), 401);
      expectEnvelope(await api.client.confirm('PG0000000000000000000000NO'), 404);
      expectEnvelope(await admin('POST', '', { name: 'Envelope merchant' }), 201);
    });

    it.each([
      ['GET', '/v1/no-such-endpoint'],
      ['DELETE', '/no-such-endpoint'],
    ])('an unknown path (%s %s) answers 404 in the envelope', async (method, path) => {
      const answer = await http(method, path, { headers: as(api.client) });
      expectEnvelope(answer, 404);
      expect(answer.headers.get('allow')).toBeNull();
    });

    it.each([
      // "initialize" and "confirm" cannot be references: GET /collections/{ref} does not serve them.
      ['PUT', '/v1/collections/initialize', 'POST'],
      ['PUT', '/collections/initialize', 'POST'],
      ['DELETE', '/v1/collections/confirm', 'POST'],
      ['GET', '/v1/callbacks/resend', 'POST'],
      ['PUT', '/callbacks/resend', 'POST'],
      ['POST', '/v1/payment-providers', 'GET, HEAD'],
      ['PATCH', '/collections/PG0000000000000000000000ZZ', 'GET, HEAD'],
    ])(
      'a known path with another method (%s %s) answers 405 in the envelope, Allow: %s',
      async (method, path, allow) => {
        const answer = await http(method, path, { headers: as(api.client) });
        expectEnvelope(answer, 405);
        expect(answer.headers.get('allow')).toBe(allow);
        expect(answer.headers.get('x-request-id')).toEqual(expect.any(String));
      },
    );

    it('answers HEAD on a GET route as GET, without a body', async () => {
      const answer = await http('HEAD', '/v1/payment-providers', { headers: as(api.client) });
      expect(answer.status).toBe(200);
      expect(answer.text).toBe('');
    });

    it.each([
      ['/v1/collections/initialize', {}],
      ['/v1/collections/initialize', { 'x-api-version': '1' }],
      ['/collections/initialize', {}],
      ['/collections/initialize', { 'x-api-version': '1' }],
    ])('initialize answers at %s with headers %j', async (path, headers) => {
      const answer = await api.client.request('POST', path, {
        body: mobileMoneyRequest({ msisdn: SILENT_MTN }),
        headers,
      });
      expectEnvelope(answer, 202);
      expect(answer.body.data.internal_reference).toMatch(INTERNAL_REFERENCE);
    });

    it.each([
      ['/v1/collections/initialize', '2'],
      ['/collections/initialize', '2'],
      ['/v1/collections/initialize', '0'],
      ['/collections/initialize', 'v2'],
    ])('initialize at %s with x-api-version %s answers 400 and writes nothing', async (path, version) => {
      const before = (await collectionEvents()).length;
      const answer = await api.client.request('POST', path, {
        body: mobileMoneyRequest({ msisdn: SILENT_MTN }),
        headers: { 'x-api-version': version },
      });
      expectEnvelope(answer, 400);
      expect((await collectionEvents()).length).toBe(before);
    });

    it.each([
      ['/v1/collections/confirm', {}],
      ['/v1/collections/confirm', { 'x-api-version': '1' }],
      ['/collections/confirm', {}],
      ['/collections/confirm', { 'x-api-version': '1' }],
    ])('confirm answers at %s with headers %j', async (path, headers) => {
      const { internal_reference } = await initialized(api.client, mobileMoneyRequest({ msisdn: SILENT_MTN }));
      const answer = await api.client.request('POST', path, { body: { internal_reference }, headers });
      expectEnvelope(answer, 202);
      expect(answer.body.message).toBe(
        'You will receive a prompt to pay UGX 81,000 on your mobile. Enter PIN to approve payment',
      );
    });

    it.each(['/v1/collections/confirm', '/collections/confirm'])(
      'confirm at %s with x-api-version 2 answers 400',
      async (path) => {
        const { internal_reference } = await initialized(api.client, mobileMoneyRequest({ msisdn: SILENT_MTN }));
        const answer = await api.client.request('POST', path, {
          body: { internal_reference },
          headers: { 'x-api-version': '2' },
        });
        expectEnvelope(answer, 400);
        // Still awaiting confirmation: the refused request confirmed nothing.
        const events = await api.paygate.infrastructure.store.readStream(`collection-${internal_reference as string}`);
        expect(events.map((event) => event.type)).toEqual(['CollectionInitiated', 'collections.CollectionOpened']);
      },
    );

    it.each([
      ['/v1/collections/{ref}', {}, 200],
      ['/v1/collections/{ref}', { 'x-api-version': '1' }, 200],
      ['/collections/{ref}', {}, 200],
      ['/collections/{ref}', { 'x-api-version': '1' }, 200],
      ['/v1/collections/{ref}', { 'x-api-version': '2' }, 400],
      ['/collections/{ref}', { 'x-api-version': '2' }, 400],
    ])('GET %s with headers %j answers %i', async (template, headers, code) => {
      const { internal_reference } = await initialized(api.client, mobileMoneyRequest({ msisdn: SILENT_MTN }));
      const answer = await api.client.request('GET', template.replace('{ref}', internal_reference as string), {
        secret: true,
        headers,
      });
      expectEnvelope(answer, code);
      if (code === 200) expect(answer.body.data.internal_reference).toBe(internal_reference);
    });

    it.each([
      ['/v1/collections?merchant_reference={ref}', { 'x-api-version': '1' }, 200],
      ['/collections?merchant_reference={ref}', {}, 200],
      ['/collections?merchant_reference={ref}', { 'x-api-version': '2' }, 400],
    ])('GET %s with headers %j answers %i', async (template, headers, code) => {
      const { merchant_reference } = await initialized(api.client, mobileMoneyRequest({ msisdn: SILENT_MTN }));
      const answer = await api.client.request(
        'GET',
        template.replace('{ref}', encodeURIComponent(merchant_reference as string)),
        { secret: true, headers },
      );
      expectEnvelope(answer, code);
    });

    it.each([
      ['/v1/payment-providers', {}, 200],
      ['/payment-providers', {}, 200],
      ['/payment-providers', { 'x-api-version': '1' }, 200],
      ['/v1/payment-providers', { 'x-api-version': '2' }, 400],
      ['/payment-providers', { 'x-api-version': '2' }, 400],
    ])('GET %s with headers %j answers %i', async (path, headers, code) => {
      expectEnvelope(await api.client.request('GET', path, { headers }), code);
    });
  });

  describe('OpenAPI', () => {
    it('GET /openapi.json serves docs/openapi.json, the document every answer of these suites is checked against', async () => {
      const answer = await http('GET', '/openapi.json');
      expect(answer.status).toBe(200);
      const document = JSON.parse(answer.text) as {
        openapi: string;
        paths: Record<string, Json>;
        components: { schemas: Record<string, { properties: Json; required?: string[] }> };
      };
      // The same document but for servers, which names this gateway rather than npm start's default.
      const committed = JSON.parse(readFileSync(OPENAPI_DOCUMENT_PATH, 'utf8')) as { servers: Json[] };
      expect(document).toEqual({ ...committed, servers: [{ url: api.paygate.url, description: 'this gateway' }] });
      expect(document.openapi).toBe('3.1.0');
      for (const path of [
        '/v1/collections/initialize',
        '/v1/collections/confirm',
        '/v1/payment-providers',
        '/v1/callbacks/resend',
        '/admin/v1/deliveries',
        '/admin/v1/deliveries/retry',
        '/admin/v1/merchants',
      ])
        expect(Object.keys(document.paths)).toContain(path);
      // The aliases answer (above) but are documented once, under /v1.
      expect(Object.keys(document.paths)).not.toContain('/collections/initialize');
      // A command the collections service does not answer in time is a 503 with Retry-After.
      expect(document.paths['/v1/collections/initialize']).toMatchObject({
        post: { responses: { 503: { headers: { 'Retry-After': expect.any(Object) } } } },
      });
      const dto = document.components.schemas.InitializeCollectionDto;
      expect(Object.keys(dto.properties).sort()).toEqual([...INITIALIZE_FIELDS].sort());
      expect(dto.required).toEqual(expect.arrayContaining(INITIALIZE_REQUIRED));
    });

    it('GET /docs answers 200 HTML', async () => {
      const answer = await http('GET', '/docs');
      expect(answer.status).toBe(200);
      expect(answer.contentType).toMatch(/text\/html/);
      expect(answer.text).toMatch(/<html/i);
    });
  });
});
