/**
 * GET /v1/callbacks: a merchant's own callbacks with their attempts, newest first, filtered and
 * cursor-paged (docs/webhooks.md, "The callback log"), against an in-process Paygate.
 */
import { CallbackReceiver, eventually, mobileMoneyRequest, PaygateClient, TEST_ADMIN_TOKEN } from '@paygate/testing';
import type { InProcessPaygate } from '@paygate/standalone';
import { startCallbackTestPaygate } from '../standalone/test-paygate';

interface Delivery {
  webhook_id: string;
  merchant_id: string;
  internal_reference: string;
  event: string;
  state: string;
  attempts: {
    attempt: number;
    started_at: string;
    duration_ms: number;
    status_code: number | null;
    error: string | null;
  }[];
}
interface Page {
  deliveries: Delivery[];
  next_cursor: string | null;
}

describe('the callback log (GET /v1/callbacks)', () => {
  let paygate: InProcessPaygate;
  let receiver: CallbackReceiver;
  let merchant: PaygateClient;
  let other: PaygateClient;
  /** Oldest first: each collection's charges callback. */
  const references: string[] = [];

  const page = async (client: PaygateClient, query = ''): Promise<Page> => {
    const answer = await client.request<Page>('GET', `/v1/callbacks${query}`, { secret: true });
    expect(answer.status).toBe(200);
    return answer.body.data;
  };

  beforeAll(async () => {
    paygate = await startCallbackTestPaygate({ CONFIRMATION_TIMEOUT_MS: '3600000' });
    receiver = await CallbackReceiver.start();
    merchant = await PaygateClient.withNewMerchant(
      paygate.url,
      TEST_ADMIN_TOKEN,
      'Callback log merchant',
      receiver.url(),
    );
    other = await PaygateClient.withNewMerchant(paygate.url, TEST_ADMIN_TOKEN, 'Another merchant', receiver.url());
    for (let i = 0; i < 3; i++) {
      const answer = await merchant.initialize(mobileMoneyRequest());
      references.push(answer.body.data.internal_reference as string);
      await receiver.waitFor(references[i], 'transaction.charges');
    }
    await other.initialize(mobileMoneyRequest());
  });

  afterAll(async () => {
    await receiver?.close();
    await paygate?.close();
  });

  it('lists the merchant’s callbacks newest first, each with the attempt that delivered it', async () => {
    const listed = await eventually(
      async () => {
        const { deliveries } = await page(merchant);
        return deliveries.length === 3 && deliveries.every((d) => d.state === 'delivered' && d.attempts.length === 1)
          ? deliveries
          : undefined;
      },
      10_000,
      'three delivered callbacks with their attempts',
    );
    expect(listed.map((delivery) => delivery.internal_reference)).toEqual([...references].reverse());
    for (const delivery of listed) {
      expect(delivery).toMatchObject({ merchant_id: merchant.merchant.id, event: 'transaction.charges' });
      expect(delivery.attempts[0]).toMatchObject({ attempt: 1, status_code: 200, error: null });
      expect(delivery.attempts[0].duration_ms).toBeGreaterThanOrEqual(0);
    }
  });

  it('pages with limit and next_cursor, each callback once', async () => {
    const first = await page(merchant, '?limit=2');
    expect(first.deliveries.map((d) => d.internal_reference)).toEqual([references[2], references[1]]);
    const second = await page(merchant, `?limit=2&cursor=${first.next_cursor}`);
    expect(second.deliveries.map((d) => d.internal_reference)).toEqual([references[0]]);
    expect(second.next_cursor).toBeNull();
  });

  it('filters by internal_reference and state, and shows no other merchant’s callbacks', async () => {
    const one = await page(merchant, `?internal_reference=${references[1]}`);
    expect(one.deliveries.map((d) => d.internal_reference)).toEqual([references[1]]);
    expect((await page(merchant, '?state=abandoned')).deliveries).toEqual([]);
    expect((await page(merchant, '?state=delivered&limit=100')).deliveries).toHaveLength(3);
    const theirs = await page(other, '?limit=100');
    for (const reference of references)
      expect(theirs.deliveries.map((d) => d.internal_reference)).not.toContain(reference);
    expect((await page(other, `?internal_reference=${references[0]}`)).deliveries).toEqual([]);
  });

  it.each([
    ['?state=sent', 'state'],
    ['?state=delivered&state=pending', 'state'],
    ['?internal_reference=order-1', 'internal_reference'],
    ['?limit=0', 'limit'],
    ['?cursor=abc', 'cursor'],
    ['?outcome=delivered', 'outcome'],
  ])('%s answers 400 naming %s', async (query, field) => {
    const answer = await merchant.request<{ errors: { field: string }[] }>('GET', `/v1/callbacks${query}`, {
      secret: true,
    });
    expect(answer.status).toBe(400);
    expect(answer.body.data.errors.map((error) => error.field)).toEqual([field]);
  });

  it('answers 401 without the secret key', async () => {
    expect((await merchant.request('GET', '/v1/callbacks')).status).toBe(401);
  });
});
