import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { moneyOutStream, providerReferenceOf } from '@paygate/contracts';
import {
  cardRequest,
  eventually,
  mobileMoneyRequest,
  payOnCheckoutPage,
  PaygateClient,
  SandboxAdmin,
  TEST_ADMIN_TOKEN,
  topUpWallet,
  walletShows,
  walletWithoutHolds,
} from '@paygate/testing';
import type { InProcessPaygate } from '@paygate/standalone';
import { startCallbackTestPaygate } from '../standalone/test-paygate';

/** The shipped catalogue, but Airtel and cards refunding only whole payments (`"partial_refunds": false`). */
function catalogueRefundingWholePaymentsOnly(dir: string): string {
  const shipped = JSON.parse(readFileSync(join(__dirname, '..', '..', 'config', 'providers.json'), 'utf8')) as {
    providers: { provider_code: string }[];
  };
  for (const provider of shipped.providers)
    if (provider.provider_code === 'airtel_money_ug' || provider.provider_code === 'card_ug')
      Object.assign(provider, { partial_refunds: false });
  const file = join(dir, 'providers.json');
  writeFileSync(file, JSON.stringify(shipped));
  return file;
}

/**
 * A provider that refunds only whole payments (PROVIDER_CATALOGUE_FILE's `partial_refunds: false`): a part of a mobile
 * money payment is paid out to the payer's number by the provider's payout product, a whole payment is refunded as
 * usual, and a part of a card payment, which no payout can reach, is refused naming amount before anything is held.
 */
describe('a partial refund where the provider refunds only whole payments', () => {
  const dir = mkdtempSync(join(tmpdir(), 'paygate-catalogue-'));
  let paygate: InProcessPaygate;
  let client: PaygateClient;
  let sandbox: SandboxAdmin;
  let sequence = 0;
  const reference = (what: string) => `rf-whole-${what}-${process.pid}-${++sequence}`;

  beforeAll(async () => {
    paygate = await startCallbackTestPaygate({ PROVIDER_CATALOGUE_FILE: catalogueRefundingWholePaymentsOnly(dir) });
    client = await PaygateClient.withNewMerchant(paygate.url, TEST_ADMIN_TOKEN, 'Whole-refund merchant');
    sandbox = new SandboxAdmin(paygate.url);
    await topUpWallet(paygate.url, client.merchant.id, 500_000);
  }, 120_000);
  afterAll(async () => {
    await paygate?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A COMPLETED Airtel collection of UGX 100,000 from 256752000001, its credit in the wallet. */
  async function completedAirtelCollection(): Promise<string> {
    const init = await client.initialize(
      mobileMoneyRequest({
        msisdn: '256752000001',
        provider_code: 'airtel_money_ug',
        amount: 100_000,
        require_confirmation: false,
      }),
    );
    expect(init.status).toBe(202);
    const ref = String(init.body.data.internal_reference);
    expect(await client.finalState(ref)).toMatchObject({ transaction_status: 'COMPLETED' });
    await walletWithoutHolds(client);
    return ref;
  }
  const refund = (body: Record<string, unknown>) =>
    client.request<{ status: string; amount: number }>('POST', '/v1/refunds', { body, secret: true });
  const completed = (refundReference: string) =>
    eventually(
      async () => {
        const { body } = await client.request<{ status: string }>('GET', `/v1/refunds/${refundReference}`, {
          secret: true,
        });
        return body.data.status === 'COMPLETED' ? body.data : undefined;
      },
      30_000,
      `refund ${refundReference} COMPLETED`,
    );
  /** What the sandbox provider recorded under the refund's reference, by its payout or its refund product. */
  const atProvider = async (refundReference: string, product: 'payout' | 'refund') => {
    const providerReference = providerReferenceOf(
      moneyOutStream('REFUND', client.merchant.id, refundReference),
      'REFUND',
    );
    const { status, body } = await sandbox.request<{ requests_received: number; status: string }>(
      'GET',
      `/sandbox/v1/money-out/${providerReference}?kind=${product}`,
    );
    return status === 200 ? body.data : undefined;
  };

  it('pays a part of a mobile money payment out to the payer’s number, once, and takes it from the wallet', async () => {
    const ref = await completedAirtelCollection();
    const before = await walletWithoutHolds(client);
    const refundReference = reference('part');
    const accepted = await refund({ internal_reference: ref, refund_reference: refundReference, amount: 20_000 });
    expect(accepted.status).toBe(202);
    await completed(refundReference);
    expect(await atProvider(refundReference, 'payout')).toMatchObject({ requests_received: 1, status: 'SUCCESSFUL' });
    expect(await atProvider(refundReference, 'refund')).toBeUndefined();
    const paid = before.balance - 20_000;
    await walletShows(client, { balance: paid, available_balance: paid }, 'the part paid out');
  });

  it('refunds a whole payment through the refund product', async () => {
    const ref = await completedAirtelCollection();
    const refundReference = reference('whole');
    expect((await refund({ internal_reference: ref, refund_reference: refundReference })).status).toBe(202);
    await completed(refundReference);
    expect(await atProvider(refundReference, 'refund')).toMatchObject({ requests_received: 1 });
    expect(await atProvider(refundReference, 'payout')).toBeUndefined();
  });

  it('refuses a part of a card payment naming amount, holding nothing and recording no refund', async () => {
    const init = await client.initialize(cardRequest({ amount: 50_000 }));
    const ref = String(init.body.data.internal_reference);
    const confirmed = await client.confirm(ref);
    await payOnCheckoutPage(confirmed.body.data.payment_url as string, { number: '4242424242424242' });
    expect(await client.finalState(ref)).toMatchObject({ transaction_status: 'COMPLETED' });
    const before = await walletWithoutHolds(client);
    const refundReference = reference('card');
    const refused = await refund({ internal_reference: ref, refund_reference: refundReference, amount: 10_000 });
    expect(refused.status).toBe(400);
    expect(refused.body.data).toEqual({
      errors: [{ field: 'amount', message: expect.stringContaining('card_ug refunds only whole payments') }],
    });
    expect(await walletWithoutHolds(client)).toEqual(before);
    expect((await client.request('GET', `/v1/refunds/${refundReference}`, { secret: true })).status).toBe(404);
  });
});
