import { CallbackReceiver, type ReceivedCallback } from './callback-receiver';
import type { CollectForPaymentContext } from './collect-for-payment-outcomes';
import { mobileMoneyRequest, PaygateClient, TEST_TIMERS } from './paygate-client';
import { SandboxAdmin, topUpWallet, walletOf, walletShows } from './sandbox-admin';
import { eventually } from './wait';

/** Attempts a PRN payment gets in the test configuration (TEST_TIMERS.PAYMENT_RETRY_ATTEMPTS). */
const PAYMENT_CALLS_UNTIL_GIVING_UP = Number(TEST_TIMERS.PAYMENT_RETRY_ATTEMPTS);

/**
 * Collect-for-payment when things go wrong, end to end through the public API: holds that must be
 * released, a biller that never recovers, and two collections racing for one PRN. Every case
 * checks the merchant's wallet afterwards. Runs in standalone and in distributed mode.
 */
export function collectForPaymentFaultSuite(context: CollectForPaymentContext): void {
  let client: PaygateClient;
  let receiver: CallbackReceiver;
  let admin: SandboxAdmin;

  beforeAll(async () => {
    receiver = await CallbackReceiver.start();
    client = await PaygateClient.withNewMerchant(context.gateway(), undefined, 'PRN faults merchant', receiver.url());
    admin = new SandboxAdmin(context.sandbox());
  });

  afterAll(async () => {
    await admin?.billerFaults({});
    await receiver?.close();
  });

  const collectForPayment = async (body: Record<string, unknown>): Promise<string> => {
    const accepted = await client.request('POST', '/v1/collections/collect-for-payment', {
      body: mobileMoneyRequest(body),
    });
    expect(accepted.status).toBe(202);
    return String(accepted.body.data.internal_reference);
  };

  const eventsOf = (callbacks: ReceivedCallback[]) => callbacks.map((callback) => callback.event);

  it('a merchant whose wallet cannot cover the fee it bears: not eligible, nothing held or moved', async () => {
    expect(await walletOf(client)).toEqual({ currency: 'UGX', balance: 0, available_balance: 0 });
    const prn = await admin.createPrn(25_000);
    const ref = await collectForPayment({ amount: 25_000, prn, charge_customer: false });
    const callbacks = await receiver.waitFor(ref, 'transaction.cancelled', 60_000);
    expect(eventsOf(callbacks)).toEqual(['payment.failed', 'transaction.cancelled']);
    expect(callbacks[0].payload).toMatchObject({
      transaction_status: 'FAILED',
      status_message: expect.stringContaining('wallet balance cannot cover the fee'),
    });
    expect(callbacks[1].payload).toMatchObject({
      status_message: 'PRN not eligible: wallet balance cannot cover the fee',
    });
    expect(await admin.paymentCalls(prn)).toBe(0);
    expect(await walletOf(client)).toEqual({ currency: 'UGX', balance: 0, available_balance: 0 });
  });

  it('the merchant bears the fee and the customer declines: the hold is released, the wallet as it was', async () => {
    await topUpWallet(context.gateway(), client.merchant.id, 5_000);
    await walletShows(client, { balance: 5_000, available_balance: 5_000 }, 'the top-up to show');
    const prn = await admin.createPrn(25_000);
    const ref = await collectForPayment({
      amount: 25_000,
      prn,
      charge_customer: false,
      require_confirmation: false,
      msisdn: '256772000002',
    });
    const callbacks = await receiver.waitFor(ref, 'payment.failed', 60_000);
    expect(eventsOf(callbacks)).toEqual(['transaction.failed', 'payment.failed']);
    expect(callbacks[1].payload).toMatchObject({ transaction_status: 'FAILED', account_number: prn });
    await walletShows(client, { balance: 5_000, available_balance: 5_000 }, 'the fee hold to be released');
    expect(await admin.paymentCalls(prn)).toBe(0);
  });

  it('a biller that never comes back: retries spent, payment.failed, the funds stay in the wallet', async () => {
    const before = await walletOf(client);
    const prn = await admin.createPrn(25_000);
    await admin.billerFaults({ fail_next: 1_000 });
    try {
      const ref = await collectForPayment({ amount: 25_000, prn, charge_customer: true, require_confirmation: false });
      const callbacks = await receiver.waitFor(ref, 'payment.failed', 60_000);
      expect(eventsOf(callbacks)).toEqual(['transaction.completed', 'payment.failed']);
      expect(callbacks[1].payload).toMatchObject({
        transaction_status: 'FAILED',
        account_number: prn,
        request_amount: 25_000,
      });
      expect(await admin.prn(prn)).toMatchObject({
        status: 'AVAILABLE',
        payment_calls: PAYMENT_CALLS_UNTIL_GIVING_UP,
        payments: [],
      });
      // charge_customer=true: the merchant is credited the full 25,000, and none of it went to the biller.
      await walletShows(
        client,
        { balance: before.balance + 25_000, available_balance: before.available_balance + 25_000 },
        'the credit to show',
      );
    } finally {
      await admin.billerFaults({});
    }
  });

  it('a biller that cannot say whether the PRN is payable before the deadline: transaction.cancelled, then payment.failed', async () => {
    const before = await walletOf(client);
    const prn = await admin.createPrn(25_000);
    await admin.billerFaults({ fail_lookups_next: 1_000 });
    try {
      const ref = await collectForPayment({ amount: 25_000, prn, charge_customer: false, require_confirmation: false });
      const callbacks = await receiver.waitFor(ref, 'payment.failed', 60_000);
      expect(eventsOf(callbacks)).toEqual(['transaction.cancelled', 'payment.failed']);
      expect(callbacks[0].payload).toMatchObject({
        transaction_status: 'CANCELLED',
        status_message: 'Transaction cancelled: the PRN could not be validated in time',
      });
      expect(await admin.paymentCalls(prn)).toBe(0);
      expect(await walletOf(client)).toEqual(before);
    } finally {
      await admin.billerFaults({});
    }
  });

  it('two collections for one PRN, both completed: the PRN is paid once, the other payment fails, both credits stay', async () => {
    const before = await walletOf(client);
    const prn = await admin.createPrn(25_000);
    const refs = await Promise.all([1, 2].map(() => collectForPayment({ amount: 25_000, prn, charge_customer: true })));
    // Both validated while the PRN was still AVAILABLE; then both customers pay.
    await Promise.all(refs.map((ref) => receiver.waitFor(ref, 'transaction.charges', 60_000)));
    expect((await Promise.all(refs.map((ref) => client.confirm(ref)))).map((answer) => answer.status)).toEqual([
      202, 202,
    ]);
    const outcomes = await Promise.all(
      refs.map((ref) =>
        eventually(
          () =>
            receiver
              .about(ref)
              .find((callback) => callback.event === 'payment.completed' || callback.event === 'payment.failed'),
          60_000,
          `the payment outcome of ${ref}`,
        ),
      ),
    );
    expect(outcomes.map((callback) => callback.event).sort()).toEqual(['payment.completed', 'payment.failed']);
    for (const ref of refs)
      expect(eventsOf(receiver.about(ref))).toEqual([
        'transaction.charges',
        'transaction.completed',
        expect.stringMatching(/^payment\./),
      ]);
    const atBiller = await admin.prn(prn);
    expect(atBiller.status).toBe('PAID');
    expect(atBiller.payments).toHaveLength(1);
    // Two credits of 25,000, one PRN payment of 25,000.
    await walletShows(
      client,
      { balance: before.balance + 25_000, available_balance: before.available_balance + 25_000 },
      'both credits and one payment to show',
    );
  });
}
