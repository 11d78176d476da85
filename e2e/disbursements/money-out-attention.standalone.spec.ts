import { eventually, PaygateClient, TEST_ADMIN_TOKEN, topUpWallet } from '@paygate/testing';
import type { InProcessPaygate } from '@paygate/standalone';
import { signedInUser } from '../dashboard/dashboard-http';
import { startCallbackTestPaygate } from '../standalone/test-paygate';

/**
 * A payout the provider never confirms (0004, whose late completion is put off here for two minutes) stays PENDING,
 * provider_unconfirmed, its money held; after MONEY_OUT_ATTENTION_AFTER_MS it is listed for operators
 * (GET /admin/v1/money-out?state=needs_attention) and on its merchant's dashboard Payouts page, and nowhere else.
 */
describe('money out needing attention: the operators’ list and the merchant’s dashboard', () => {
  let paygate: InProcessPaygate;
  let client: PaygateClient;
  let other: PaygateClient;

  beforeAll(async () => {
    paygate = await startCallbackTestPaygate({
      SANDBOX_LATE_COMPLETION_MS: '120000',
      MONEY_OUT_ATTENTION_AFTER_MS: '1000',
    });
    [client, other] = await Promise.all(
      ['Payout merchant, unconfirmed', 'Payout merchant, calm'].map((name) =>
        PaygateClient.withNewMerchant(paygate.url, TEST_ADMIN_TOKEN, name),
      ),
    );
    await Promise.all([client, other].map((merchant) => topUpWallet(paygate.url, merchant.merchant.id, 100_000)));
  }, 120_000);
  afterAll(() => paygate?.close());

  const payout = (merchant: PaygateClient, reference: string, msisdn: string) =>
    merchant.request('POST', '/v1/payouts', {
      secret: true,
      body: { payout_reference: reference, currency: 'UGX', amount: 10_000, provider_code: 'mtn_momo_ug', msisdn },
    });
  const needingAttention = async (token = TEST_ADMIN_TOKEN) => {
    const response = await fetch(`${paygate.url}/admin/v1/money-out?state=needs_attention`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return {
      status: response.status,
      body: (await response.json()) as { data: { money_out: { reference: string }[] } },
    };
  };

  it('lists the unconfirmed payout for operators once it has waited too long, and only it', async () => {
    expect((await payout(client, 'attention-late', '256772000004')).status).toBe(202);
    expect((await payout(other, 'attention-paid', '256772000001')).status).toBe(202);
    const listed = await eventually(
      async () => {
        const { body } = await needingAttention();
        return body.data.money_out.length > 0 ? body.data.money_out : undefined;
      },
      20_000,
      'the unconfirmed payout listed',
    );
    expect(listed).toEqual([
      expect.objectContaining({
        kind: 'PAYOUT',
        merchant_id: client.merchant.id,
        reference: 'attention-late',
        status: 'PENDING',
        pending_reason: 'provider_unconfirmed',
        amount: 10_000,
        currency: 'UGX',
      }),
    ]);
    expect((await needingAttention('not-the-admin-token')).status).toBe(401);
  });

  it('shows it under Needs attention on its merchant’s Payouts page, and not on another merchant’s', async () => {
    const [mine, theirs] = await Promise.all(
      [client, other].map(
        async (merchant) => (await signedInUser(paygate.url, TEST_ADMIN_TOKEN, merchant.merchant.id, 'viewer')).browser,
      ),
    );
    const page = await eventually(
      async () => {
        const shown = await mine.get('/dashboard/payouts');
        return shown.text.includes('id="attention-heading"') ? shown : undefined;
      },
      20_000,
      'the Needs attention section',
    );
    const attention = page.text.slice(
      page.text.indexOf('id="attention-heading"'),
      page.text.indexOf('id="payouts-heading"'),
    );
    expect(attention).toContain('<td class="mono">attention-late</td>');
    const calm = await theirs.get('/dashboard/payouts');
    expect(calm.status).toBe(200);
    expect(calm.text).not.toContain('id="attention-heading"');
    expect(calm.text).not.toContain('attention-late');
  });
});
