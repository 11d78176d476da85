/**
 * Issue 26: a path parameter that cannot be what the route looks up is not a lookup. The
 * documented patterns (docs/openapi.json: internal_reference `^PG[0-9A-HJKMNP-TV-Z]{24}$`, a
 * merchant id `^mer_[A-Za-z0-9]{1,64}$`) are the router's: `GET /v1/collections/initialize` is a
 * POST-only path asked with GET (405, Allow: POST), not a collection named "initialize" (it was
 * 401 without keys and 404 "transaction not found" with them). Any other value that cannot be a
 * reference is a path no route serves (404); a reference-shaped one that does not exist is the
 * route's own 404. Text the input layer refuses is still its 400, naming the parameter.
 */
import { startInputPaygate, NOTHING_WRITTEN, type InputPaygate } from './input-paygate-test-setup';
import { allowed, expectEnvelope, send, UNKNOWN_MERCHANT, UNKNOWN_REFERENCE } from './http-edge-test-setup';
import { TEST_ADMIN_TOKEN } from '@paygate/testing';

const POST_ONLY = ['initialize', 'confirm', 'collect-for-payment'].flatMap((action) => [
  `/v1/collections/${action}`,
  `/collections/${action}`,
]);

describe('path parameters that cannot be a reference', () => {
  let input: InputPaygate;
  let keys: Record<string, string>;
  const adminKeys = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
  const at = (method: string, path: string, headers: Record<string, string> = {}, body?: string) =>
    send(input.paygate.url, method, path, headers, body);

  beforeAll(async () => {
    input = await startInputPaygate();
    const { publicKey, secretKey } = input.context.merchant;
    keys = { 'public-key': publicKey, 'secret-key': secretKey };
    await input.writesSinceLastLook();
  });

  afterAll(async () => {
    await input?.close();
  });

  it.each(POST_ONLY)(
    'GET and HEAD %s answer 405 with Allow: POST, with the merchant’s keys or without',
    async (path) => {
      for (const headers of [keys, {}]) {
        for (const method of ['GET', 'HEAD']) {
          const answer = await at(method, path, headers);
          expect({ method, status: answer.status, allow: allowed(answer) }).toEqual({
            method,
            status: 405,
            allow: ['POST'],
          });
          expectEnvelope(answer, method, 405, `${method} is not served at this path; POST is`);
        }
      }
      expect(await input.writesSinceLastLook()).toEqual(NOTHING_WRITTEN);
    },
  );

  it('answers GET /v1/collections/confirm 405 through fetch too, which checks every answer against the OpenAPI document', async () => {
    const response = await fetch(`${input.paygate.url}/v1/collections/confirm`, { headers: keys });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(await response.json()).toEqual({
      code: 405,
      status: 'error',
      message: 'GET is not served at this path; POST is',
      data: {},
    });
  });

  it.each([
    ['a word', 'unknown'],
    ['lower case', UNKNOWN_REFERENCE.toLowerCase()],
    ['a letter Crockford base32 leaves out (O)', 'PG0000000000000000000000OO'],
    ['one character short', UNKNOWN_REFERENCE.slice(0, -1)],
    ['one character long', `${UNKNOWN_REFERENCE}Z`],
    ['punctuation', 'PG-000000000000000000000ZZ'],
  ])('GET /v1/collections/{%s} is no route: 404 without Allow, before the keys are checked', async (_case, value) => {
    for (const headers of [keys, {}]) {
      const answer = await at('GET', `/v1/collections/${encodeURIComponent(value)}`, headers);
      expect(answer.headers.allow).toBeUndefined();
      expectEnvelope(answer, 'GET', 404, `Cannot GET /v1/collections/${encodeURIComponent(value)}`);
    }
  });

  it('answers a reference-shaped collection that does not exist with the lookup’s own 404', async () => {
    expectEnvelope(await at('GET', `/v1/collections/${UNKNOWN_REFERENCE}`, keys), 'GET', 404, 'transaction not found');
    expectEnvelope(await at('GET', `/collections/${UNKNOWN_REFERENCE}`, keys), 'GET', 404, 'transaction not found');
    // Without keys, the lookup's authentication answers first.
    expectEnvelope(await at('GET', `/v1/collections/${UNKNOWN_REFERENCE}`), 'GET', 401);
  });

  it('answers a merchant id that cannot be one 404 at every merchant route, and an unknown one "merchant not found"', async () => {
    const json = { ...adminKeys, 'content-type': 'application/json' };
    for (const id of ['keys', 'MER_abc', 'mer_', 'mer_a-b']) {
      const path = `/admin/v1/merchants/${id}`;
      expectEnvelope(await at('GET', path, adminKeys), 'GET', 404, `Cannot GET ${path}`);
      expectEnvelope(await at('PATCH', path, json, '{"status":"suspended"}'), 'PATCH', 404, `Cannot PATCH ${path}`);
      expectEnvelope(
        await at('POST', `${path}/keys`, json, '{"keys":["api"]}'),
        'POST',
        404,
        `Cannot POST ${path}/keys`,
      );
    }
    expectEnvelope(
      await at('GET', `/admin/v1/merchants/${UNKNOWN_MERCHANT}`, adminKeys),
      'GET',
      404,
      'merchant not found',
    );
    expectEnvelope(
      await at('POST', `/admin/v1/merchants/${UNKNOWN_MERCHANT}/keys`, json, '{"keys":["api"]}'),
      'POST',
      404,
      'merchant not found',
    );
    expect(await input.writesSinceLastLook()).toEqual(NOTHING_WRITTEN);
  });

  it('still serves a real merchant id and refuses NUL in a parameter with a 400 naming it', async () => {
    expect((await at('GET', `/admin/v1/merchants/${input.context.merchant.id}`, adminKeys)).status).toBe(200);
    const answer = await at('GET', '/v1/collections/PG%00', keys);
    expectEnvelope(
      answer,
      'GET',
      400,
      'path parameter internal_reference must not contain NUL characters or unpaired UTF-16 surrogates',
    );
    expect(JSON.parse(answer.text).data.errors).toEqual([
      {
        field: 'internal_reference',
        message: 'path parameter internal_reference must not contain NUL characters or unpaired UTF-16 surrogates',
      },
    ]);
  });
});
