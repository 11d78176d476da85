/**
 * A live deployment (MODE=live) against a test one: the keys each issues, a key of the other mode
 * refused as such, and the sandbox refused in a live process. The live Paygate is every app of
 * standalone but the sandbox, in this process, with provider URLs on a loopback port nothing
 * listens on (no test here reaches a provider).
 */
import { ConfigError } from '@paygate/config';
import { walletStream } from '@paygate/contracts';
import { SandboxProvidersModule } from '@paygate/sandbox-providers';
import { STANDALONE_MODULES, startInProcess, type InProcessPaygate } from '@paygate/standalone';
import {
  CallbackReceiver,
  eventually,
  mobileMoneyRequest,
  PaygateClient,
  TEST_ADMIN_TOKEN,
  TEST_CALLBACK_SETTINGS,
  TEST_MASTER_KEY,
  TEST_RATE_LIMITS,
} from '@paygate/testing';
import { startCallbackTestPaygate } from './test-paygate';

const NOWHERE = 'http://127.0.0.1:9';
const LIVE = {
  ...TEST_RATE_LIMITS,
  ...TEST_CALLBACK_SETTINGS,
  MASTER_KEY: TEST_MASTER_KEY,
  ADMIN_TOKEN: TEST_ADMIN_TOKEN,
  LOG_LEVEL: 'error',
  MODE: 'live',
  MOMO_API_URL: `${NOWHERE}/momo`,
  MOMO_API_USER: 'live-user',
  MOMO_API_KEY: 'live-key',
  MOMO_SUBSCRIPTION_KEY: 'live-subscription-key',
  MOMO_TARGET_ENVIRONMENT: 'mtnuganda',
  CARD_API_URL: `${NOWHERE}/card`,
  CARD_SECRET_KEY: 'live-card-secret',
  BILLER_API_URL: `${NOWHERE}/biller`,
  BILLER_API_KEY: 'live-biller-key',
};
const WITHOUT_SANDBOX = STANDALONE_MODULES.filter((module) => module !== SandboxProvidersModule);

/** A merchant key of `mode` that no deployment issued: refused for its mode before it is looked up. */
const foreignKeys = (mode: 'test' | 'live') => ({
  'public-key': `pk_${mode}_${'x'.repeat(32)}`,
  'secret-key': `sk_${mode}_${'x'.repeat(40)}`,
});

describe('test and live deployments', () => {
  let live: InProcessPaygate;
  let test: InProcessPaygate;
  let liveMerchant: PaygateClient;
  let testMerchant: PaygateClient;
  let receiver: CallbackReceiver;

  // Two Paygates start here, each with its embedded database: on a shared machine that takes a while.
  beforeAll(async () => {
    receiver = await CallbackReceiver.start();
    [live, test] = await Promise.all([startInProcess(LIVE, WITHOUT_SANDBOX), startCallbackTestPaygate()]);
    [liveMerchant, testMerchant] = await Promise.all([
      PaygateClient.withNewMerchant(live.url, TEST_ADMIN_TOKEN, 'Live shop', receiver.url()),
      PaygateClient.withNewMerchant(test.url, TEST_ADMIN_TOKEN, 'Test shop', receiver.url()),
    ]);
  }, 180_000);

  afterAll(async () => {
    await Promise.all([live?.close(), test?.close()]);
    await receiver?.close();
  });

  it('a live deployment issues pk_live_/sk_live_ keys, a test deployment pk_test_/sk_test_', () => {
    expect(liveMerchant.merchant.publicKey).toMatch(/^pk_live_[A-Za-z0-9]{32}$/);
    expect(liveMerchant.merchant.secretKey).toMatch(/^sk_live_[A-Za-z0-9]{40}$/);
    expect(testMerchant.merchant.publicKey).toMatch(/^pk_test_[A-Za-z0-9]{32}$/);
    expect(testMerchant.merchant.secretKey).toMatch(/^sk_test_[A-Za-z0-9]{40}$/);
  });

  it('each takes its own keys', async () => {
    expect((await liveMerchant.request('GET', '/v1/wallet-balances', { secret: true })).status).toBe(200);
    expect((await testMerchant.request('GET', '/v1/wallet-balances', { secret: true })).status).toBe(200);
  });

  it('a test key sent to a live deployment answers 401 saying so, and the converse', async () => {
    const toLive = await liveMerchant.request('GET', '/v1/wallet-balances', { headers: foreignKeys('test') });
    expect(toLive.status).toBe(401);
    expect(toLive.body).toMatchObject({ code: 401, message: 'a test key was sent to a live deployment' });
    const toTest = await testMerchant.request('GET', '/v1/wallet-balances', { headers: foreignKeys('live') });
    expect(toTest.status).toBe(401);
    expect(toTest.body).toMatchObject({ code: 401, message: 'a live key was sent to a test deployment' });
  });

  it("a merchant's own public key with a secret key of the other mode is refused for its mode too", async () => {
    const answer = await liveMerchant.request('GET', '/v1/wallet-balances', {
      headers: { 'secret-key': foreignKeys('test')['secret-key'] },
    });
    expect(answer.status).toBe(401);
    expect(answer.body.message).toBe('a test key was sent to a live deployment');
  });

  it('a live deployment serves no /sandbox/v1 alias of the admin API', async () => {
    const topUp = (url: string, merchantId: string) =>
      fetch(`${url}/sandbox/v1/wallets/top-up`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
        body: JSON.stringify({ merchant_id: merchantId, currency: 'UGX', amount: 1000 }),
      });
    const alias = await topUp(live.url, liveMerchant.merchant.id);
    expect(alias.status).toBe(404);
    expect(((await alias.json()) as { message: string }).message).toBe(
      'a live deployment serves no sandbox routes: this one is /admin/v1/wallets/top-up',
    );
    expect((await topUp(test.url, testMerchant.merchant.id)).status).toBe(200);
  });

  it('a live collection says livemode: true in its acknowledgement, its record and its callback', async () => {
    // Initialize asks no provider (the customer confirms first), so nothing leaves this process but the callback.
    const init = await liveMerchant.initialize(mobileMoneyRequest({ require_confirmation: true }));
    expect(init.status).toBe(202);
    expect(init.body.data.livemode).toBe(true);
    const reference = String(init.body.data.internal_reference);
    expect((await liveMerchant.collection(reference)).body.data.livemode).toBe(true);
    const [charges] = await receiver.waitFor(reference, 'transaction.charges');
    expect(charges.payload.livemode).toBe(true);
    expect(CallbackReceiver.verify(charges, liveMerchant.merchant.signingKey)).toBe(true);
  });

  it('a test collection says livemode: false', async () => {
    const init = await testMerchant.initialize(mobileMoneyRequest({ require_confirmation: true }));
    expect(init.body.data.livemode).toBe(false);
    const reference = String(init.body.data.internal_reference);
    const [charges] = await receiver.waitFor(reference, 'transaction.charges');
    expect(charges.payload.livemode).toBe(false);
  });

  it('wallet balances and the wallet statement say the mode of their deployment', async () => {
    const balances = async (merchant: PaygateClient) =>
      (await merchant.request<{ livemode: boolean }[]>('GET', '/v1/wallet-balances', { secret: true })).body.data;
    await fetch(`${live.url}/admin/v1/wallets/top-up`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      body: JSON.stringify({
        merchant_id: liveMerchant.merchant.id,
        currency: 'UGX',
        amount: 1000,
        operator: 'ops',
        reason: 'balance check',
      }),
    });
    expect((await balances(liveMerchant)).map((wallet) => wallet.livemode)).toEqual([true]);
    const statement = async (merchant: PaygateClient) =>
      (
        await eventually(
          async () => {
            const { body } = await merchant.request<{ transactions: { livemode: boolean }[] }>(
              'GET',
              '/v1/wallet/transactions',
              { secret: true },
            );
            return body.data.transactions.length > 0 ? body.data.transactions : undefined;
          },
          10_000,
          'the top-up on the statement',
        )
      ).map((entry) => entry.livemode);
    expect(await statement(liveMerchant)).toEqual([true]);
  });

  describe("a top-up through the admin API is an operator's credit", () => {
    const topUp = (url: string, body: Record<string, unknown>) =>
      fetch(`${url}/admin/v1/wallets/top-up`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
        body: JSON.stringify({ currency: 'UGX', amount: 250_000, ...body }),
      });

    it('a live deployment refuses one that does not say who and why, changing nothing', async () => {
      const merchant_id = (await PaygateClient.withNewMerchant(live.url)).merchant.id;
      const refused = await topUp(live.url, { merchant_id, reference: 'float-no-operator' });
      expect(refused.status).toBe(400);
      const { data } = (await refused.json()) as { data: { errors: { field: string }[] } };
      expect(data.errors.map((error) => error.field)).toEqual(['operator', 'reason']);
      expect(
        await live.infrastructure.store.readStream(walletStream({ merchantId: merchant_id, currency: 'UGX' })),
      ).toEqual([]);
    });

    it('and records who and why on the wallet event when it is given', async () => {
      const merchant_id = (await PaygateClient.withNewMerchant(live.url)).merchant.id;
      const credited = await topUp(live.url, {
        merchant_id,
        reference: 'float-11',
        operator: 'ops@paygate.example',
        reason: 'November float, ticket OPS-118',
      });
      expect(credited.status).toBe(200);
      const [event] = await live.infrastructure.store.readStream(
        walletStream({ merchantId: merchant_id, currency: 'UGX' }),
      );
      expect(event.data).toMatchObject({
        operator: 'ops@paygate.example',
        reason: 'November float, ticket OPS-118',
        transfer: { amount: 250_000, debitAccount: 'top_up:UGX' },
      });
      expect(JSON.stringify(event)).not.toContain(TEST_ADMIN_TOKEN);
    });

    it('a test deployment still takes one without them', async () => {
      expect((await topUp(test.url, { merchant_id: testMerchant.merchant.id })).status).toBe(200);
    });
  });

  it('a live deployment with the in-process sandbox does not start: a ConfigError naming MODE', async () => {
    const refused = startInProcess(LIVE);
    await expect(refused).rejects.toThrow(ConfigError);
    await expect(refused).rejects.toMatchObject({ variable: 'MODE' });
    await expect(refused).rejects.toThrow(/^invalid configuration: MODE is live, and this app runs the sandbox/);
  });
});
