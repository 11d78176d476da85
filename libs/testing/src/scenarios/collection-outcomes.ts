import { CallbackReceiver } from './callback-receiver';
import { cardRequest, mobileMoneyRequest, PaygateClient } from './paygate-client';

export interface OutcomeContext {
  /** Gateway base URL. */
  gateway: () => string;
}

/** Submits the sandbox's card form like a browser would; returns where the checkout sends the customer. */
export async function payOnCheckoutPage(
  paymentUrl: string,
  card: { number?: string; cancel?: boolean },
): Promise<string> {
  const page = await fetch(paymentUrl);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain('name="card_number"');
  const response = card.cancel
    ? await fetch(`${paymentUrl}/cancel`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: '',
      })
    : await fetch(paymentUrl, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ card_number: card.number ?? '', expiry: '12/40', cvv: '123' }).toString(),
      });
  expect(response.status).toBe(303);
  return response.headers.get('location') ?? '';
}

/** Follows the gateway's return URL to the merchant's redirect_url. */
export async function followReturn(returnUrl: string): Promise<string> {
  const response = await fetch(returnUrl, { redirect: 'manual' });
  expect(response.status).toBe(303);
  return response.headers.get('location') ?? '';
}

/**
 * Every sandbox outcome (docs/api.md, Sandbox), end to end through the public API; the same suite runs
 * in standalone and in distributed mode.
 */
export function collectionOutcomeSuite(context: OutcomeContext): void {
  let client: PaygateClient;
  let receiver: CallbackReceiver;

  beforeAll(async () => {
    receiver = await CallbackReceiver.start();
    client = await PaygateClient.withNewMerchant(context.gateway(), undefined, 'Outcome merchant', receiver.url());
  });

  afterAll(async () => {
    await receiver?.close();
  });

  /** The merchant receives exactly these callbacks, in this order, each signed with its key. */
  async function expectCallbacks(ref: string, events: string[], final: Record<string, unknown>) {
    const received = await receiver.waitFor(ref, events[events.length - 1]);
    expect(received.map((callback) => callback.event)).toEqual(events);
    for (const callback of received) {
      expect(CallbackReceiver.verify(callback, client.merchant.signingKey)).toBe(true);
      expect(callback.headers['webhook-id']).toMatch(/^msg_/);
      expect(callback.payload).toMatchObject({
        internal_reference: ref,
        transaction_type: 'COLLECTION',
        merchant_reference: final.merchant_reference,
        id: final.id,
      });
      expect(callback.payload).not.toHaveProperty('transaction_fee');
    }
    if (events[0] === 'transaction.charges') {
      expect(received[0].payload).toMatchObject({
        transaction_status: 'PENDING',
        institution_name: expect.any(String),
        transaction_charge: final.transaction_fee,
      });
    }
    const last = received[received.length - 1].payload;
    expect(last).not.toHaveProperty('institution_name');
    expect(last).toMatchObject({
      transaction_status: final.transaction_status,
      status_message: final.status_message,
      transaction_amount: final.transaction_amount,
      transaction_charge: final.transaction_fee,
      total_credit: final.total_credit,
      customer_name: final.customer_name,
      transaction_account: final.transaction_account,
    });
  }

  async function confirmedMobileMoney(msisdn: string) {
    const init = await client.initialize(mobileMoneyRequest({ msisdn }));
    expect(init.status).toBe(202);
    const ref = init.body.data.internal_reference as string;
    const confirm = await client.confirm(ref);
    expect(confirm).toMatchObject({
      status: 202,
      body: {
        message: 'You will receive a prompt to pay UGX 81,000 on your mobile. Enter PIN to approve payment',
        data: {},
      },
    });
    return ref;
  }

  it.each([
    ['256772000001', 'COMPLETED', 'Transaction completed successfully'],
    ['256772000002', 'FAILED', 'Balance Insufficient for the transaction'],
    ['256752000003', 'CANCELLED', 'Transaction declined by the customer'],
    ['256772000004', 'CANCELLED', 'Transaction cancelled: payment prompt not answered in time'],
  ])('mobile money %s ends %s', async (msisdn, status, message) => {
    const init = await client.initialize(
      mobileMoneyRequest({ msisdn, provider_code: msisdn.startsWith('25675') ? 'airtel_money_ug' : 'mtn_momo_ug' }),
    );
    expect(init.status).toBe(202);
    const ref = init.body.data.internal_reference as string;
    expect((await client.confirm(ref)).status).toBe(202);
    const final = await client.finalState(ref);
    expect(final).toMatchObject({
      transaction_status: status,
      status_message: message,
      internal_reference: ref,
      transaction_account: msisdn,
    });
    await expectCallbacks(ref, ['transaction.charges', `transaction.${status.toLowerCase()}`], final);
  });

  it('completes a mobile money collection whose provider never calls back, by polling its status', async () => {
    const ref = await confirmedMobileMoney('256772000005');
    expect(await client.finalState(ref)).toMatchObject({ transaction_status: 'COMPLETED' });
  });

  it('sends no second prompt when confirm is repeated, and refuses confirm once final', async () => {
    // A number that never answers keeps the prompt open until PROMPT_TIMEOUT_MS, however slow the machine.
    const ref = await confirmedMobileMoney('256772000004');
    expect((await client.confirm(ref)).status).toBe(202);
    await client.finalState(ref);
    const late = await client.confirm(ref);
    expect(late).toMatchObject({ status: 409, body: { code: 409, status: 'error' } });
  });

  it.each([
    ['256772000001', 'COMPLETED'],
    ['256772000004', 'CANCELLED'],
  ])('with require_confirmation=false prompts %s at once and ends %s', async (msisdn, status) => {
    const init = await client.initialize(mobileMoneyRequest({ msisdn, require_confirmation: false }));
    expect(init).toMatchObject({
      status: 202,
      body: { message: 'Transaction initiated. Pending processing', data: { transaction_status: 'PENDING' } },
    });
    const ref = init.body.data.internal_reference as string;
    expect((await client.confirm(ref)).status).toBe(409);
    const final = await client.finalState(ref);
    expect(final).toMatchObject({ transaction_status: status });
    await expectCallbacks(ref, [`transaction.${status.toLowerCase()}`], final);
  });

  it('cancels a collection that is never confirmed', async () => {
    const init = await client.initialize(mobileMoneyRequest());
    const ref = init.body.data.internal_reference as string;
    const final = await client.finalState(ref);
    expect(final).toMatchObject({
      transaction_status: 'CANCELLED',
      status_message: 'Transaction cancelled: confirmation not received in time',
    });
    expect((await client.confirm(ref)).status).toBe(409);
    await expectCallbacks(ref, ['transaction.charges', 'transaction.cancelled'], final);
  });

  it.each([
    ['4242424242424242', 'COMPLETED', 'Transaction completed successfully'],
    ['4000000000000002', 'FAILED', 'Card declined'],
    ['4000000000009995', 'FAILED', 'Insufficient funds'],
    ['cancel', 'CANCELLED', 'Transaction cancelled by the customer on the checkout page'],
  ])('card %s ends %s and redirects with a valid signature', async (card, status, message) => {
    const init = await client.initialize(cardRequest());
    expect(init.status).toBe(202);
    const ref = init.body.data.internal_reference as string;
    const confirm = await client.confirm(ref);
    expect(confirm).toMatchObject({
      status: 202,
      body: {
        message: 'Redirect to URL for the payment of UGX 25,000',
        data: { payment_url: expect.stringMatching(/^http/) },
      },
    });
    const returnUrl = await payOnCheckoutPage(
      confirm.body.data.payment_url as string,
      card === 'cancel' ? { cancel: true } : { number: card },
    );
    const redirect = client.verifyRedirect(await followReturn(returnUrl));
    expect(redirect.get('order')).toBe('7');
    expect(Object.fromEntries(redirect)).toMatchObject({
      internal_reference: ref,
      transaction_status: status,
      status_message: message,
    });
    const final = await client.finalState(ref);
    expect(final).toMatchObject({ transaction_status: status, status_message: message });
    if (status === 'COMPLETED') expect(final.transaction_account).toBe('424242******4242');
    await expectCallbacks(ref, ['transaction.charges', `transaction.${status.toLowerCase()}`], final);
  });
}
