import { CallbackReceiver } from './callback-receiver';
import { payOnCheckoutPage } from './collection-outcomes';
import { cardRequest, mobileMoneyRequest, PaygateClient, TEST_ADMIN_TOKEN, type ApiResponse } from './paygate-client';
import { eventually } from './wait';

export interface CollectForPaymentContext {
  /** Gateway base URL. */
  gateway: () => string;
  /** Base URL of the sandbox (its admin routes: PRNs, biller faults, wallet top-ups). */
  sandbox: () => string;
}

/** The sandbox's admin API, as a test drives it. */
export class SandboxAdmin {
  constructor(private readonly baseUrl: string) {}

  async request<Data = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<ApiResponse<Data>> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as ApiResponse<Data>['body'] };
  }

  /** A fresh PRN (13 generated digits) for this amount, AVAILABLE unless told otherwise. */
  async createPrn(amount: number, overrides: Record<string, unknown> = {}): Promise<string> {
    const created = await this.request<{ prn: string }>('POST', '/sandbox/v1/prns', { amount, currency: 'UGX', service_name: 'URA - Domestic Tax', ...overrides });
    if (created.status !== 201) throw new Error(`cannot create a PRN: ${created.status} ${JSON.stringify(created.body)}`);
    return created.body.data.prn;
  }

  async paymentCalls(prn: string): Promise<number> {
    const found = await this.request<{ payment_calls: number }>('GET', `/sandbox/v1/prns/${prn}`);
    return found.body.data.payment_calls;
  }

  async topUp(merchantId: string, amount: number): Promise<void> {
    const answer = await this.request('POST', '/sandbox/v1/wallets/top-up', { merchant_id: merchantId, currency: 'UGX', amount });
    if (answer.status >= 300) throw new Error(`top-up refused: ${answer.status} ${JSON.stringify(answer.body)}`);
  }

  async billerFaults(faults: { fail_next?: number; delay_ms?: number }): Promise<void> {
    const answer = await this.request('PUT', '/sandbox/v1/biller/faults', faults);
    if (answer.status >= 300) throw new Error(`biller faults refused: ${answer.status} ${JSON.stringify(answer.body)}`);
  }
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

  const balances = async () => (await client.request<{ currency: string; balance: number; available_balance: number }[]>('GET', '/v1/wallet-balances', { secret: true })).body.data;
  const ugx = async () => (await balances()).find((wallet) => wallet.currency === 'UGX') ?? { currency: 'UGX', balance: 0, available_balance: 0 };

  async function expectSigned(ref: string, events: string[]) {
    const received = await receiver.waitFor(ref, events[events.length - 1], 60_000);
    expect(received.map((callback) => callback.event)).toEqual(events);
    for (const callback of received) expect(CallbackReceiver.verify(callback, client.merchant.signingKey)).toBe(true);
    return received;
  }

  it('mobile money: PRN validated, charges, confirm, completed, then the PRN is paid once from the wallet', async () => {
    await admin.topUp(client.merchant.id, 2_000); // the merchant bears the fee: the wallet must hold it
    // A fresh merchant: the top-up is all there is (the read model may trail the command briefly).
    const before = await eventually(async () => ((await ugx()).balance === 2_000 ? ugx() : undefined), 30_000, 'the top-up to show');
    const prn = await admin.createPrn(25_000);
    const accepted = await client.request('POST', '/v1/collections/collect-for-payment', { body: mobileMoneyRequest({ amount: 25_000, prn }) });
    expect(accepted.status).toBe(202);
    const ref = String(accepted.body.data.internal_reference);
    await receiver.waitFor(ref, 'transaction.charges', 30_000);
    expect((await client.confirm(ref)).status).toBe(202);
    const [charges, completed, paid] = await expectSigned(ref, ['transaction.charges', 'transaction.completed', 'payment.completed']);
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
    });
    expect(await admin.paymentCalls(prn)).toBe(1);
    // Credited total_credit (25,000 − fee), then debited the PRN's 25,000: the fee came from the wallet.
    const fee = Number(completed.payload.transaction_charge);
    await eventually(async () => ((await ugx()).balance === before.balance - fee ? true : undefined), 30_000, 'the wallet to show the payment');
    expect(await ugx()).toEqual({ currency: 'UGX', balance: before.balance - fee, available_balance: before.balance - fee });
    const record = await client.collection(ref);
    expect(record.body.data).toMatchObject({ prn, service_payment: { account_number: prn, transaction_status: 'COMPLETED' } });
  });

  it('card without redirect_url: the customer ends on the hosted result page, the PRN is paid', async () => {
    const prn = await admin.createPrn(25_000);
    const body = cardRequest({ prn, charge_customer: true, require_confirmation: false });
    delete body.redirect_url;
    const accepted = await client.request('POST', '/v1/collections/collect-for-payment', { body });
    const ref = String(accepted.body.data.internal_reference);
    const paymentUrl = await eventually(async () => {
      const record = await client.collection(ref);
      return typeof record.body.data.payment_url === 'string' ? record.body.data.payment_url : undefined;
    }, 30_000, 'the checkout to open after the PRN verdict');
    const page = await fetch(await payOnCheckoutPage(paymentUrl, { number: '4242424242424242' }), { redirect: 'manual' });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Payment completed');
    await expectSigned(ref, ['transaction.completed', 'payment.completed']);
    expect(await admin.paymentCalls(prn)).toBe(1);
  });

  it.each([
    ['already paid', { status: 'PAID' }, 25_000],
    ['expired', { status: 'EXPIRED' }, 25_000],
    ['of another amount', {}, 30_000],
  ])('a PRN %s: payment.failed, then transaction.cancelled, and nothing reaches the customer', async (_case, prnOverrides, amount) => {
    const prn = await admin.createPrn(25_000, prnOverrides);
    const accepted = await client.request('POST', '/v1/collections/collect-for-payment', { body: mobileMoneyRequest({ amount, prn, charge_customer: true }) });
    const ref = String(accepted.body.data.internal_reference);
    const [failed, cancelled] = await expectSigned(ref, ['payment.failed', 'transaction.cancelled']);
    expect(failed.payload).toMatchObject({ transaction_type: 'SERVICE_PAYMENT', transaction_status: 'FAILED', account_number: prn });
    expect(cancelled.payload).toMatchObject({ transaction_status: 'CANCELLED', status_message: expect.stringMatching(/^PRN not eligible: /) });
    expect((await client.confirm(ref)).status).toBe(409);
    expect(await admin.paymentCalls(prn)).toBe(0);
  });

  it('an unknown PRN is not eligible either', async () => {
    const accepted = await client.request('POST', '/v1/collections/collect-for-payment', { body: mobileMoneyRequest({ amount: 25_000, prn: '9999999999999', charge_customer: true }) });
    const ref = String(accepted.body.data.internal_reference);
    await expectSigned(ref, ['payment.failed', 'transaction.cancelled']);
  });

  it('a biller that fails for a while: the PRN is paid once, late', async () => {
    const prn = await admin.createPrn(25_000);
    await admin.billerFaults({ fail_next: 2 });
    try {
      const accepted = await client.request('POST', '/v1/collections/collect-for-payment', { body: mobileMoneyRequest({ amount: 25_000, prn, charge_customer: true, require_confirmation: false }) });
      const ref = String(accepted.body.data.internal_reference);
      await expectSigned(ref, ['transaction.completed', 'payment.completed']);
      expect(await admin.paymentCalls(prn)).toBe(3);
    } finally {
      await admin.billerFaults({});
    }
  });
}
