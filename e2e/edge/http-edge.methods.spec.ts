/**
 * Issue 26: every path Paygate serves, asked with a method it does not serve there, answers 405
 * in the envelope with `Allow` naming the methods it does serve and an x-request-id; QUERY
 * included, with or without a Content-Type or a body (Fastify refused a QUERY without
 * Content-Type with its own 400 first), and whatever the body's media type (an unknown one was a
 * 415). OPTIONS is no exception: there is no CORS, so a browser's preflight is refused too
 * (docs/api.md). HEAD is served wherever GET is, with GET's status and no body.
 */
import { startInputPaygate, NOTHING_WRITTEN, type InputPaygate } from './input-paygate-test-setup';
import { allowed, expectEnvelope, KNOWN_PATHS, METHODS, send } from './http-edge-test-setup';

describe('a known path asked with a method it does not serve', () => {
  let input: InputPaygate;
  let paths: [string, string[]][];
  const at = (method: string, path: string, headers: Record<string, string> = {}, body?: string) =>
    send(input.paygate.url, method, path, headers, body);

  beforeAll(async () => {
    input = await startInputPaygate();
    paths = KNOWN_PATHS(input.context);
    await input.writesSinceLastLook();
  });

  afterAll(async () => {
    await input?.close();
  });

  const expect405 = (answer: Awaited<ReturnType<typeof at>>, method: string, path: string, methods: string[]) => {
    expect({ method, path, status: answer.status, allow: allowed(answer) }).toEqual({
      method,
      path,
      status: 405,
      allow: [...methods].sort(),
    });
    expectEnvelope(answer, method, 405, new RegExp(`^${method} is not served at this path; `));
  };

  it('answers every other method, QUERY and TRACE included, 405 with Allow, and writes nothing', async () => {
    let asked = 0;
    for (const [path, methods] of paths) {
      for (const method of METHODS.filter((candidate) => !methods.includes(candidate))) {
        expect405(await at(method, path), method, path, methods);
        asked++;
      }
    }
    expect(asked).toBeGreaterThan(250);
    expect(await input.writesSinceLastLook()).toEqual(NOTHING_WRITTEN);
  });

  it('answers QUERY 405 without a Content-Type, with JSON, with an empty body and with an unknown media type', async () => {
    for (const [path, methods] of paths) {
      expect405(await at('QUERY', path), 'QUERY', path, methods);
      expect405(
        await at('QUERY', path, { 'content-type': 'application/json' }, '{"merchant_reference":"order-1"}'),
        'QUERY',
        path,
        methods,
      );
      expect405(
        await at('QUERY', path, { 'content-type': 'application/json', 'content-length': '0' }),
        'QUERY',
        path,
        methods,
      );
      expect405(await at('QUERY', path, { 'content-type': 'application/xml' }, '<query/>'), 'QUERY', path, methods);
    }
    expect(await input.writesSinceLastLook()).toEqual(NOTHING_WRITTEN);
  });

  it('answers a body of any media type, or one without a Content-Type, 405 rather than 415 when the method is not served', async () => {
    const answer = await at(
      'PUT',
      '/v1/collections/initialize',
      { 'content-type': 'application/xml' },
      '<collection/>',
    );
    expect405(answer, 'PUT', '/v1/collections/initialize', ['POST']);
    expect405(await at('DELETE', '/admin/v1/merchants', {}, 'raw bytes'), 'DELETE', '/admin/v1/merchants', ['POST']);
  });

  it('keeps the caller’s x-request-id on a 405', async () => {
    const answer = await at('QUERY', '/v1/payment-providers', { 'x-request-id': 'edge-query-1' });
    expect(answer.status).toBe(405);
    expect(answer.headers['x-request-id']).toBe('edge-query-1');
  });

  it('refuses a CORS preflight like any OPTIONS: 405 with Allow, no Access-Control header', async () => {
    const answer = await at('OPTIONS', '/v1/collections/initialize', {
      origin: 'https://shop.example.com',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type, public-key',
    });
    expect405(answer, 'OPTIONS', '/v1/collections/initialize', ['POST']);
    expect(Object.keys(answer.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });

  it('answers HEAD wherever GET is served with GET’s status and no body', async () => {
    for (const [path, methods] of paths.filter(
      ([path, methods]) => methods.includes('GET') && !path.endsWith('/stream'),
    )) {
      const [get, head] = [await at('GET', path), await at('HEAD', path)];
      expect({ path, head: head.status, text: head.text }).toEqual({ path, head: get.status, text: '' });
      expect(methods).toContain('HEAD');
    }
  });

  it('leaves a path no route serves 404 in the envelope without Allow, whatever the method', async () => {
    for (const method of METHODS) {
      const answer = await at(method, '/v1/no-such-endpoint');
      expect(answer.headers.allow).toBeUndefined();
      expectEnvelope(answer, method, 404);
    }
    expectEnvelope(
      await at('QUERY', '/v1/no-such-endpoint', { 'content-type': 'application/xml' }, '<q/>'),
      'QUERY',
      404,
    );
  });
});
