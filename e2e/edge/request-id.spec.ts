/**
 * The request id: a caller's acceptable `x-request-id` is kept, anything else is replaced by a
 * generated one, and every answer (errors included) carries it back.
 */
import { startObservedPaygate, type ObservedPaygate } from './observability-test-setup';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('x-request-id', () => {
  let observed: ObservedPaygate;
  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${observed.paygate.url}${path}`, { headers });

  beforeAll(async () => {
    observed = await startObservedPaygate();
  });

  afterAll(async () => {
    await observed?.close();
  });

  it.each([
    ['letters, digits and . _ : -', 'shop-42_retry.1:a'],
    ['128 characters', 'a'.repeat(128)],
  ])("keeps a caller's id made of %s", async (_case, id) => {
    const response = await get('/health/live', { 'x-request-id': id });
    expect(response.headers.get('x-request-id')).toBe(id);
  });

  it.each([
    ['longer than 128 characters', 'a'.repeat(129)],
    ['with a space', 'two words'],
    ['with a quote', 'id"injected'],
    ['with a slash', '../etc'],
    ['with non-ASCII letters', 'zürich'],
    ['empty', ''],
  ])('replaces an id %s with a generated one', async (_case, id) => {
    const response = await get('/health/live', { 'x-request-id': id });
    expect(response.headers.get('x-request-id')).toMatch(UUID);
  });

  it('generates a different id for each request without one', async () => {
    const [first, second] = await Promise.all([get('/health/live'), get('/health/live')]);
    expect(first.headers.get('x-request-id')).toMatch(UUID);
    expect(second.headers.get('x-request-id')).toMatch(UUID);
    expect(first.headers.get('x-request-id')).not.toBe(second.headers.get('x-request-id'));
  });

  it('returns the id with error answers: unknown routes, refused credentials, bad bodies', async () => {
    expect((await get('/no/such/route', { 'x-request-id': 'err-1' })).headers.get('x-request-id')).toBe('err-1');
    const refused = await fetch(`${observed.paygate.url}/v1/collections/initialize`, {
      method: 'POST',
      headers: { 'x-request-id': 'err-2', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('x-request-id')).toBe('err-2');
    const { publicKey } = observed.client.merchant;
    const bad = await fetch(`${observed.paygate.url}/v1/collections/initialize`, {
      method: 'POST',
      headers: { 'x-request-id': 'err-3', 'public-key': publicKey, 'content-type': 'application/json' },
      body: '{not json',
    });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('x-request-id')).toBe('err-3');
  });
});
