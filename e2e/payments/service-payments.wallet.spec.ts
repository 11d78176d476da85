import { PAYMENTS_INTEGRATION_EVENTS as PUBLISHED, TopUpWallet } from '@paygate/contracts';
import { SERVICE_PAYMENT_EVENT_TYPES as EVENTS } from '@paygate/payments-domain';
import { PaymentsHarness, single } from './service-payments-test-setup';

/**
 * The admin API's wallet top-up (sent to service-payments as payments.topUp), the balances the
 * contract answers, and a payment the biller accepted although its caller never heard back.
 */
describe('service-payments: wallets', () => {
  let harness: PaymentsHarness;

  beforeAll(async () => {
    // A biller call answers after 1.5 s when a delay is injected, so a call can time out after the biller took it.
    harness = await PaymentsHarness.start({ PROVIDER_TIMEOUT_MS: '1000' });
  });

  afterAll(async () => {
    await harness?.close();
  });

  const topUp = (json: unknown, token?: string | null) =>
    harness.admin('POST', '/admin/v1/wallets/top-up', json, token);

  it('tops up a wallet in major units and answers balances through the contract', async () => {
    const merchant = await harness.newMerchant('Top-up merchant');
    const answer = await topUp({
      merchant_id: merchant.merchant.id,
      currency: 'KES',
      amount: 10.5,
      reference: 'kes-1',
    });
    expect(answer).toEqual({
      status: 200,
      body: {
        code: 200,
        status: 'success',
        message: 'Wallet topped up',
        data: {
          merchant_id: merchant.merchant.id,
          currency: 'KES',
          reference: 'kes-1',
          balance: 10.5,
          available: 10.5,
        },
      },
    });
    expect((await topUp({ merchant_id: merchant.merchant.id, currency: 'UGX', amount: 5_000 })).status).toBe(200);
    await harness.eventuallyBalance({ balance: 1_050, available: 1_050 }, merchant.merchant.id, 'KES');
    await harness.eventuallyBalance({ balance: 5_000, available: 5_000 }, merchant.merchant.id, 'UGX');
    expect(await harness.balances(merchant.merchant.id)).toEqual([
      { currency: 'KES', balance: 1_050, available: 1_050 },
      { currency: 'UGX', balance: 5_000, available: 5_000 },
    ]);
    expect(await harness.balances('mer_unknown')).toEqual([]);
  });

  it('makes a retried top-up the same top-up, and refuses its reference for another amount', async () => {
    const merchant = await harness.newMerchant('Retrying merchant');
    const body = { merchant_id: merchant.merchant.id, currency: 'UGX', amount: 700, reference: 'once' };
    expect((await topUp(body)).body.data).toMatchObject({ balance: 700 });
    expect((await topUp(body)).body.data).toMatchObject({ balance: 700 });
    const other = await topUp({ ...body, amount: 800 });
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ code: 409, status: 'error' });
    await harness.eventuallyBalance({ balance: 700, available: 700 }, merchant.merchant.id);
  });

  it.each([
    ['a decimal UGX amount', { currency: 'UGX', amount: 10.5 }, 'amount', 'amount UGX amounts have no decimals'],
    ['a zero amount', { currency: 'UGX', amount: 0 }, 'amount', 'amount must be greater than 0'],
    ['an amount as text', { currency: 'UGX', amount: '100' }, 'amount', 'amount must be a number in major units'],
    [
      'an unknown currency',
      { currency: 'XXX', amount: 100 },
      'currency',
      'currency must be a supported currency code (e.g. UGX)',
    ],
    [
      'no merchant_id',
      { merchant_id: undefined, currency: 'UGX', amount: 100 },
      'merchant_id',
      'merchant_id must be a merchant id',
    ],
    ['an unknown field', { currency: 'UGX', amount: 100, note: 'x' }, 'note', 'note is not a field of this request'],
  ])('answers 400 naming the field for %s', async (_case, fields, field, message) => {
    const answer = await topUp({ merchant_id: harness.merchant.merchant.id, ...fields });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: 400, status: 'error' });
    expect(answer.body.data.errors).toContainEqual({ field, message });
  });

  it('answers 404 for an unknown merchant and 401 without the admin token', async () => {
    const unknown = await topUp({ merchant_id: 'mer_doesnotexist000', currency: 'UGX', amount: 100 });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: 404, status: 'error' });
    expect(
      (await topUp({ merchant_id: harness.merchant.merchant.id, currency: 'UGX', amount: 100 }, null)).status,
    ).toBe(401);
    expect(
      (
        await topUp(
          { merchant_id: harness.merchant.merchant.id, currency: 'UGX', amount: 100 },
          'wrong-token-0123456789',
        )
      ).status,
    ).toBe(401);
  });

  it('refuses a top-up sent with a bad amount over the command bus', async () => {
    const send = harness.paygate.infrastructure.commands.send(
      new TopUpWallet({ merchantId: harness.merchant.merchant.id, currency: 'UGX', amount: 1.5, reference: 'bad' }),
    );
    await expect(send).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('pays a PRN once when the biller took a payment whose answer never arrived', async () => {
    await harness.topUp(1_000);
    const prn = await harness.createPrn();
    const ref = await harness.initiate({ prn });
    await harness.eventuallyHas(ref, PUBLISHED.prnValidated);
    await harness.prnAccepted(ref);
    // Every payment call now answers after 1.5 s, past the caller's 1 s time-out; the first one is made all the same.
    await harness.billerFaults({ delay_ms: 1_500 });
    await harness.settle(ref, 'COMPLETED');
    const events = await harness.eventuallyHas(ref, PUBLISHED.completed, 20_000);
    await harness.billerFaults({});
    // Each unanswered attempt was retried with the same idempotency key; the biller made one payment.
    expect(events.filter((event) => event.type === EVENTS.attemptFailed).length).toBeGreaterThanOrEqual(1);
    expect(single(events, EVENTS.completed).data).toMatchObject({ billerPaymentId: expect.any(String) });
    const atBiller = await harness.prnAtBiller(prn);
    expect(atBiller.status).toBe('PAID');
    expect(atBiller.payments).toHaveLength(1);
    expect(atBiller.payments[0]).toMatchObject({ status: 'COMPLETED', reference: ref });
  });
});
