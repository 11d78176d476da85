import { eventually, mobileMoneyRequest, PaygateClient, TEST_ADMIN_TOKEN, TEST_TIMERS } from '@paygate/testing';
import type { InProcessPaygate } from '@paygate/standalone';
import { countStatuses, expectLimited, send, type LimitedAnswer } from './rate-limits-test-setup';
import { sharedPostgresRateLimitSuite } from './rate-limits-shared-postgres-test-setup';
import { startTestPaygate } from '../standalone/test-paygate';

const BURST = 5;

async function start(perSecond: string): Promise<{ paygate: InProcessPaygate; merchants: PaygateClient[] }> {
  const paygate = await startTestPaygate({
    ...TEST_TIMERS,
    RATE_LIMIT_MERCHANT_PER_SECOND: perSecond,
    RATE_LIMIT_MERCHANT_BURST: String(BURST),
    CONFIRMATION_TIMEOUT_MS: '3600000',
  });
  const merchants = await Promise.all(
    ['Bursting merchant', 'Quiet merchant', 'Another quiet merchant'].map((name) =>
      PaygateClient.withNewMerchant(paygate.url, TEST_ADMIN_TOKEN, name),
    ),
  );
  return { paygate, merchants };
}

const providers = (paygate: InProcessPaygate, merchant: PaygateClient) =>
  send(`${paygate.url}/v1/payment-providers`, { headers: { 'public-key': merchant.merchant.publicKey } });

describe('rate limits per merchant (one token per 1000 s: nothing refills during a test)', () => {
  let paygate: InProcessPaygate;
  let bursting: PaygateClient;
  let quiet: PaygateClient[];
  beforeAll(async () => {
    const started = await start('0.001');
    paygate = started.paygate;
    [bursting, ...quiet] = started.merchants;
  });
  afterAll(() => paygate?.close());

  it("refuses one merchant's burst beyond its bucket while every other merchant's requests in the same window succeed", async () => {
    // Interleaved, all in flight together: the quiet merchants' requests land in the middle of the burst.
    const sent: { who: 'bursting' | 'quiet'; answer: Promise<LimitedAnswer> }[] = [];
    for (let i = 0; i < 20; i++) {
      sent.push({ who: 'bursting', answer: providers(paygate, bursting) });
      if (i % 5 === 0) for (const merchant of quiet) sent.push({ who: 'quiet', answer: providers(paygate, merchant) });
    }
    const answers = await Promise.all(sent.map(async ({ who, answer }) => ({ who, answer: await answer })));
    const of = (who: string) => answers.filter((sentAnswer) => sentAnswer.who === who).map(({ answer }) => answer);
    const counts = { bursting: countStatuses(of('bursting')), quiet: countStatuses(of('quiet')) };
    process.stdout.write(
      `rate limits per merchant: bursting merchant ${JSON.stringify(counts.bursting)}, two quiet merchants ${JSON.stringify(counts.quiet)}\n`,
    );
    expect(counts).toEqual({ bursting: { 200: BURST, 429: 20 - BURST }, quiet: { 200: 8 } });

    for (const refused of of('bursting').filter((answer) => answer.status === 429))
      expectLimited(refused, BURST, 5_000);
    const served = of('bursting').filter((answer) => answer.status === 200);
    expect(served.map((answer) => answer.headers['ratelimit-remaining']).sort()).toEqual(['0', '1', '2', '3', '4']);
    for (const answer of served)
      expect([answer.headers['ratelimit-limit'], answer.headers['retry-after']]).toEqual([String(BURST), undefined]);
  });

  it('limits every merchant route, writes nothing for a refused request, and leaves other merchants alone', async () => {
    const countEvents = async () =>
      (await paygate.infrastructure.store.readAll({ streamPrefixes: ['collection-'], maxCount: 1_000_000 })).length;
    const before = await countEvents();
    const headers = {
      'public-key': bursting.merchant.publicKey,
      'secret-key': bursting.merchant.secretKey,
      'content-type': 'application/json',
    };
    const refused = [
      await send(`${paygate.url}/v1/collections/initialize`, {
        method: 'POST',
        headers,
        body: JSON.stringify(mobileMoneyRequest()),
      }),
      await send(`${paygate.url}/v1/collections/PG0000000000000000000000AB`, { headers }),
      await send(`${paygate.url}/v1/wallet-balances`, { headers }),
    ];
    for (const answer of refused) expectLimited(answer, BURST, 5_000);
    expect(await countEvents()).toBe(before);
    expect((await quiet[0].initialize(mobileMoneyRequest())).status).toBe(202);
  });

  it('documents the 429 and its headers in the OpenAPI of merchant and admin routes', async () => {
    const { paths } = (await (await fetch(`${paygate.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, { headers?: object }> }>>;
    };
    for (const [path, method] of [
      ['/v1/collections/initialize', 'post'],
      ['/v1/wallet-balances', 'get'],
      ['/admin/v1/merchants', 'post'],
    ]) {
      expect(Object.keys(paths[path][method].responses['429'].headers ?? {}).sort()).toEqual([
        'RateLimit-Limit',
        'RateLimit-Policy',
        'RateLimit-Remaining',
        'RateLimit-Reset',
        'Retry-After',
      ]);
    }
  });
});

describe('rate limits per merchant: the bucket refills', () => {
  let paygate: InProcessPaygate;
  let merchant: PaygateClient;
  beforeAll(async () => {
    const started = await start('4');
    paygate = started.paygate;
    merchant = started.merchants[0];
  });
  afterAll(() => paygate?.close());

  it('serves the merchant again once a token has come back', async () => {
    let refused: LimitedAnswer | undefined;
    for (let sent = 0; sent < 200 && !refused; sent++) {
      const answer = await providers(paygate, merchant);
      if (answer.status === 429) refused = answer;
    }
    expect(refused).toBeDefined();
    expectLimited(refused as LimitedAnswer, BURST, 2);
    const served = await eventually(
      async () => {
        const answer = await providers(paygate, merchant);
        return answer.status === 200 ? answer : undefined;
      },
      10_000,
      'the merchant to be served again',
    );
    expect(served.headers['ratelimit-limit']).toBe(String(BURST));
  });
});

sharedPostgresRateLimitSuite();
