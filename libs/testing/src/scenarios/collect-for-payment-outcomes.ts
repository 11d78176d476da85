import { CallbackReceiver } from './callback-receiver';
import { payOnCheckoutPage } from './collection-outcomes';
import { cardRequest, mobileMoneyRequest, PaygateClient } from './paygate-client';
import { SandboxAdmin, topUpWallet, walletOf, walletShows } from './sandbox-admin';
import { eventually } from './wait';

export interface CollectForPaymentContext {
  /** Gateway base URL. */
  gateway: () => string;
  /** Base URL of the sandbox (its admin routes: PRNs, biller faults). */
  sandbox: () => string;
}

/**
 * Collect-for-payment end to end through the public API: the PRN is validated before the
 * customer sees anything, the collection proceeds or is cancelled, a completed collection credits
 * the wallet and pays the PRN once, and the merchant receives every callback signed. The same
 * suite runs in standalone and in distributed mode.
 */
export function collectForPaymentSuite(context: CollectForPaymentContext): void {
  let client: PaygateClient;
  let receiver: CallbackReceiver;
  let admin: SandboxAdmin;

  beforeAll(async () => {
    receiver = await CallbackReceiver.start();
    client = await PaygateClient.withNewMerchant(context.gateway(), undefined, 'PRN merchant', receiver.url());
    admin = new SandboxAdmin(context.sandbox());
  });

  afterAll(async () => {
    await receiver?.close();
  });

  async function expectSigned(ref: string, events: string[]) {
    const received = await receiver.waitFor(ref, events[events.length - 1], 60_000);
    expect(received.map((callback) => callback.event)).toEqual(events);
    for (const callback of received) expect(CallbackReceiver.verify(callback, client.merchant.signingKey)).toBe(true);
    return received;
  }

  it('mobile money: PRN validated, charges, confirm, completed, then the PRN is paid once from the wallet', async () => {
    await topUpWallet(context.gateway(), client.merchant.id, 2_000); // the merchant bears the fee: the wallet must hold it
    // A fresh merchant: the top-up is all there is (the read model may trail the command briefly).
    const before = await walletShows(client, { balance: 2_000, available_balance: 2_000 }, 'the top-up to show');
    const prn = await admin.createPrn(25_000);
    const accepted = await client.request('POST', '/v1/collections/collect-for-payment', {
      body: mobileMoneyRequest({ amount: 25_000, prn }),
    });
    expect(accepted.status).toBe(202);
    const ref = String(accepted.body.data.internal_reference);
    await receiver.waitFor(ref, 'transaction.charges', 30_000);
    expect((await client.confirm(ref)).status).toBe(202);
    const [charges, completed, paid] = await expectSigned(ref, [
      'transaction.charges',
      'transaction.completed',
      'payment.completed',
    ]);
    expect(charges.payload).toMatchObject({ transaction_status: 'PENDING', transaction_amount: 25_000 });
    expect(completed.payload).toMatchObject({ transaction_status: 'COMPLETED' });
    expect(paid.payload).toEqual({
      id: completed.payload.id,
      merchant_reference: completed.payload.merchant_reference,
      internal_reference: ref,
      transaction_type: 'SERVICE_PAYMENT',
      request_currency: 'UGX',
      request_amount: 25_000,
      transaction_status: 'COMPLETED',
      account_number: prn,
      transaction_charge: completed.payload.transaction_charge,
      transaction_amount: 25_000,
      customer_name: 'Jane Doe',
      service_name: 'URA - Domestic Tax',
      status_message: expect.any(String),
      additional_details: {},
      livemode: false,
    });
    await admin.expectPaidOnce(prn);
    // Credited total_credit (25,000 − fee), then debited the PRN's 25,000: the fee came from the wallet.
    const fee = Number(completed.payload.transaction_charge);
    await walletShows(
      client,
      { balance: before.balance - fee, available_balance: before.balance - fee },
      'the wallet to show the payment',
    );
    const record = await client.collection(ref);
    expect(record.body.data).toMatchObject({
      prn,
      service_payment: { account_number: prn, transaction_status: 'COMPLETED' },
    });
  });

  it('card without redirect_url: the customer ends on the hosted result page, the PRN is paid', async () => {
    const prn = await admin.createPrn(25_000);
    const body = cardRequest({ prn, charge_customer: true, require_confirmation: false });
    delete body.redirect_url;
    const accepted = await client.request('POST', '/v1/collections/collect-for-payment', { body });
    const ref = String(accepted.body.data.internal_reference);
    const paymentUrl = await eventually(
      async () => {
        const record = await client.collection(ref);
        return typeof record.body.data.payment_url === 'string' ? record.body.data.payment_url : undefined;
      },
      30_000,
      'the checkout to open after the PRN verdict',
    );
    const page = await fetch(await payOnCheckoutPage(paymentUrl, { number: '4242424242424242' }), {
      redirect: 'manual',
    });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Payment completed');
    await expectSigned(ref, ['transaction.completed', 'payment.completed']);
    await admin.expectPaidOnce(prn);
  });

  it.each([
    ['already paid', { status: 'PAID' }, 25_000],
    ['expired', { status: 'EXPIRED' }, 25_000],
    ['of another amount', {}, 30_000],
  ])(
    'a PRN %s: payment.failed, then transaction.cancelled, and nothing reaches the customer',
    async (_case, prnOverrides, amount) => {
      const prn = await admin.createPrn(25_000, prnOverrides);
      const before = await walletOf(client);
      const accepted = await client.request('POST', '/v1/collections/collect-for-payment', {
        body: mobileMoneyRequest({ amount, prn, charge_customer: true }),
      });
      const ref = String(accepted.body.data.internal_reference);
      const [failed, cancelled] = await expectSigned(ref, ['payment.failed', 'transaction.cancelled']);
      expect(failed.payload).toMatchObject({
        transaction_type: 'SERVICE_PAYMENT',
        transaction_status: 'FAILED',
        account_number: prn,
      });
      expect(cancelled.payload).toMatchObject({
        transaction_status: 'CANCELLED',
        status_message: expect.stringMatching(/^PRN not eligible: /),
      });
      expect((await client.confirm(ref)).status).toBe(409);
      expect(await admin.paymentCalls(prn)).toBe(0);
      expect(await walletOf(client)).toEqual(before);
    },
  );

  it('an unknown PRN is not eligible either', async () => {
    const accepted = await client.request('POST', '/v1/collections/collect-for-payment', {
      body: mobileMoneyRequest({ amount: 25_000, prn: '9999999999999', charge_customer: true }),
    });
    const ref = String(accepted.body.data.internal_reference);
    await expectSigned(ref, ['payment.failed', 'transaction.cancelled']);
  });

  it('a biller that fails for a while: the PRN is paid once, late', async () => {
    const prn = await admin.createPrn(25_000);
    await admin.billerFaults({ fail_next: 2 });
    try {
      const accepted = await client.request('POST', '/v1/collections/collect-for-payment', {
        body: mobileMoneyRequest({ amount: 25_000, prn, charge_customer: true, require_confirmation: false }),
      });
      const ref = String(accepted.body.data.internal_reference);
      await expectSigned(ref, ['transaction.completed', 'payment.completed']);
      await admin.expectPaidOnce(prn);
      // Two calls answered 503, then the one that paid (a status check may repeat it with the same key).
      expect(await admin.paymentCalls(prn)).toBeGreaterThanOrEqual(3);
    } finally {
      await admin.billerFaults({});
    }
  });
}
