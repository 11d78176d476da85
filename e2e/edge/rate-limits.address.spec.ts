import { PaygateClient, TEST_ADMIN_TOKEN, TEST_MASTER_KEY, TEST_TIMERS } from '@paygate/testing';
import { startInProcess, type InProcessPaygate } from '@paygate/standalone';
import { countStatuses, expectLimited, send } from './rate-limits-test-setup';
import { startTestPaygate } from '../standalone/test-paygate';

/**
 * Routes without merchant credentials are limited per source address. Every address here is a
 * loopback one (127.0.0.0/8) reaching this test's own listener; X-Forwarded-For values are only
 * header text. One token per 1000 s: nothing refills while the tests run.
 */
const PUBLIC_BURST = 3;
const PROVIDER_BURST = 4;
const UNKNOWN_REFERENCE = 'PG0000000000000000000000AB';

describe('rate limits per source address', () => {
  let paygate: InProcessPaygate;
  let merchant: PaygateClient;
  beforeAll(async () => {
    paygate = await startTestPaygate({
      ...TEST_TIMERS,
      RATE_LIMIT_PUBLIC_PER_SECOND: '0.001',
      RATE_LIMIT_PUBLIC_BURST: String(PUBLIC_BURST),
      RATE_LIMIT_PROVIDER_PER_SECOND: '0.001',
      RATE_LIMIT_PROVIDER_BURST: String(PROVIDER_BURST),
      // The test's own address is a proxy: what it says in X-Forwarded-For is the client.
      TRUST_PROXY: '127.0.0.1',
    });
    merchant = await PaygateClient.withNewMerchant(paygate.url, TEST_ADMIN_TOKEN, 'Rate limit merchant');
  });
  afterAll(() => paygate?.close());

  const checkoutReturn = (from: string, headers: Record<string, string> = {}) =>
    send(`${paygate.url}/v1/checkout/return/${UNKNOWN_REFERENCE}`, { from, headers });
  const burst = async (count: number, request: () => ReturnType<typeof send>) =>
    Promise.all(Array.from({ length: count }, request));

  it('refuses an address beyond its bucket on public routes, across routes, and serves other addresses and health', async () => {
    const answers = await burst(PUBLIC_BURST + 4, () => checkoutReturn('127.0.0.2'));
    const counts = countStatuses(answers);
    process.stdout.write(`rate limits per source address: checkout return from 127.0.0.2 ${JSON.stringify(counts)}\n`);
    expect(counts).toEqual({ 404: PUBLIC_BURST, 429: 4 });
    for (const answer of answers.filter((limited) => limited.status === 429))
      expectLimited(answer, PUBLIC_BURST, 3_000);

    // One bucket per address for every public route: the admin API and the sandbox checkout page too.
    expectLimited(
      await send(`${paygate.url}/admin/v1/merchants/${merchant.merchant.id}`, {
        from: '127.0.0.2',
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      }),
      PUBLIC_BURST,
      3_000,
    );
    expectLimited(
      await send(`${paygate.url}/sandbox/card/checkout/cs_unknown`, { from: '127.0.0.2' }),
      PUBLIC_BURST,
      3_000,
    );
    const health = await burst(10, () => send(`${paygate.url}/health/live`, { from: '127.0.0.2' }));
    expect(countStatuses(health)).toEqual({ 200: 10 });
    expect(health[0].headers['ratelimit-limit']).toBeUndefined();
    expect((await checkoutReturn('127.0.0.3')).status).toBe(404);
  });

  it('counts failed merchant authentications against the address, not a successful one', async () => {
    const bogus = await burst(PUBLIC_BURST + 2, () =>
      send(`${paygate.url}/v1/payment-providers`, { from: '127.0.0.4', headers: { 'public-key': 'pk_guess' } }),
    );
    expect(countStatuses(bogus)).toEqual({ 401: PUBLIC_BURST, 429: 2 });
    const authenticated = await burst(10, () =>
      send(`${paygate.url}/v1/payment-providers`, {
        from: '127.0.0.4',
        headers: { 'public-key': merchant.merchant.publicKey },
      }),
    );
    expect(countStatuses(authenticated)).toEqual({ 200: 10 });
  });

  it('gives provider callbacks their own bucket per address', async () => {
    const callbacks = await burst(PROVIDER_BURST + 3, () =>
      send(`${paygate.url}/provider-callbacks/mtn_momo_ug/${UNKNOWN_REFERENCE}`, {
        method: 'PUT',
        from: '127.0.0.5',
        headers: { 'content-type': 'application/json' },
        body: '{"status":"SUCCESSFUL"}',
      }),
    );
    const counts = countStatuses(callbacks);
    process.stdout.write(
      `rate limits per source address: provider callbacks from 127.0.0.5 ${JSON.stringify(counts)}\n`,
    );
    expect(counts[429]).toBe(3);
    expect(callbacks.filter((answer) => answer.status !== 429)).toHaveLength(PROVIDER_BURST);
    for (const answer of callbacks.filter((limited) => limited.status === 429))
      expectLimited(answer, PROVIDER_BURST, 4_000);
    expect((await checkoutReturn('127.0.0.5')).status).toBe(404);
  });

  it('limits what no controller answers (the OpenAPI page and document, unknown paths, wrong methods) in the same bucket, and never /metrics', async () => {
    const from = '127.0.0.8';
    const served = [
      await send(`${paygate.url}/docs`, { from }),
      await send(`${paygate.url}/openapi.json`, { from }),
      await send(`${paygate.url}/no-such-endpoint`, { from }),
    ];
    expect(served.map((answer) => [answer.status, answer.headers['ratelimit-remaining']])).toEqual([
      [200, '2'],
      [200, '1'],
      [404, '0'],
    ]);
    expectLimited(await send(`${paygate.url}/docs`, { from }), PUBLIC_BURST, 3_000);
    expectLimited(await send(`${paygate.url}/openapi.json`, { from }), PUBLIC_BURST, 3_000);
    expectLimited(await send(`${paygate.url}/v1/no-such-endpoint`, { from }), PUBLIC_BURST, 3_000);
    expectLimited(await send(`${paygate.url}/v1/collections/initialize`, { from, method: 'PUT' }), PUBLIC_BURST, 3_000);
    expectLimited(await checkoutReturn(from), PUBLIC_BURST, 3_000);
    const scrapes = await burst(10, () => send(`${paygate.url}/metrics`, { from }));
    expect(countStatuses(scrapes)).toEqual({ 200: 10 });
    expect(scrapes[0].headers['ratelimit-limit']).toBeUndefined();
  });

  it('takes the client from X-Forwarded-For only when the peer is a trusted proxy', async () => {
    const viaProxy = await burst(PUBLIC_BURST + 1, () =>
      checkoutReturn('127.0.0.1', { 'x-forwarded-for': '203.0.113.7' }),
    );
    expect(countStatuses(viaProxy)).toEqual({ 404: PUBLIC_BURST, 429: 1 });
    expect((await checkoutReturn('127.0.0.1', { 'x-forwarded-for': '203.0.113.8' })).status).toBe(404);

    // From an untrusted peer the header is ignored: a new value each time buys no new bucket.
    const spoofed = await Promise.all(
      Array.from({ length: PUBLIC_BURST + 2 }, (_, i) =>
        checkoutReturn('127.0.0.6', { 'x-forwarded-for': `203.0.113.${100 + i}` }),
      ),
    );
    expect(countStatuses(spoofed)).toEqual({ 404: PUBLIC_BURST, 429: 2 });
  });
});

describe('rate limits turned off (RATE_LIMIT_ENABLED=false, for benchmarks)', () => {
  let paygate: InProcessPaygate;
  beforeAll(async () => {
    paygate = await startInProcess({
      ...TEST_TIMERS,
      RATE_LIMIT_ENABLED: 'false',
      RATE_LIMIT_PUBLIC_PER_SECOND: '0.001',
      RATE_LIMIT_PUBLIC_BURST: '1',
      MASTER_KEY: TEST_MASTER_KEY,
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      LOG_LEVEL: 'error',
    });
  });
  afterAll(() => paygate?.close());

  it('refuses nothing and sends no rate-limit headers', async () => {
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        send(`${paygate.url}/v1/checkout/return/${UNKNOWN_REFERENCE}`, { from: '127.0.0.7' }),
      ),
    );
    expect(countStatuses(answers)).toEqual({ 404: 10 });
    expect(answers.map((answer) => answer.headers['ratelimit-limit'])).toEqual(Array(10).fill(undefined));
  });
});
