import {
  COLLECTION_INTEGRATION_EVENTS,
  PAYMENTS_INTEGRATION_EVENTS as PUBLISHED,
  type ServicePaymentCompletedIntegrationV1,
} from '@paygate/contracts';
import {
  SERVICE_PAYMENT_EVENT_TYPES as EVENTS,
  collectionTransferId,
  feeHoldId,
  holdOf,
  postedTransfer,
  prnHoldId,
} from '@paygate/payments-domain';
import { PaymentsHarness, settleDown, single, typesOf, type SettledStatus } from './service-payments-test-setup';

/**
 * Once the collection settles (collections.CollectionSettled), service-payments credits the
 * wallet and pays the PRN from it, once, whatever is delivered twice or fails on the way.
 * Every collection: UGX 25,000, fee 375 borne by the merchant, wallet credited 24,625.
 */
describe('service-payments: paying the PRN', () => {
  let harness: PaymentsHarness;
  /** The wallet before each test: 1,000 topped up, nothing held. */
  let balance = 0;

  beforeAll(async () => {
    harness = await PaymentsHarness.start();
  });

  beforeEach(async () => {
    await harness.billerFaults({});
    const current = (await harness.wallet())?.balance ?? 0;
    await harness.topUp(1_000);
    balance = current + 1_000;
    await harness.eventuallyBalance({ balance, available: balance });
  });

  afterAll(async () => {
    await harness?.close();
  });

  /** A collect-for-payment collection whose PRN was validated and accepted. */
  async function validated(outcome: SettledStatus = 'COMPLETED'): Promise<{ ref: string; prn: string }> {
    const prn = await harness.createPrn();
    const ref = await harness.initiate({ prn, outcome });
    await harness.eventuallyHas(ref, PUBLISHED.prnValidated);
    await harness.prnAccepted(ref);
    return { ref, prn };
  }

  it('credits the wallet, pays the PRN once from it and publishes payments.ServicePaymentCompleted', async () => {
    const { ref, prn } = await validated();
    await harness.settle(ref, 'COMPLETED');
    const events = await harness.eventuallyHas(ref, PUBLISHED.completed);
    expect(typesOf(events)).toEqual([
      EVENTS.opened,
      EVENTS.prnConfirmed,
      PUBLISHED.prnValidated,
      EVENTS.collectionSettled,
      EVENTS.paymentRequested,
      EVENTS.completed,
      PUBLISHED.completed,
    ]);
    const completed = single(events, PUBLISHED.completed).data as unknown as ServicePaymentCompletedIntegrationV1;
    expect(completed.payment).toMatchObject({
      internalReference: ref,
      prn,
      status: 'COMPLETED',
      statusMessage: 'PRN paid successfully',
      billerPaymentId: expect.any(String),
    });

    const atBiller = await harness.prnAtBiller(prn);
    expect(atBiller).toMatchObject({ status: 'PAID', payment_calls: 1 });
    expect(atBiller.payments).toHaveLength(1);

    // Credited 24,625; the PRN's 25,000 left the wallet: the merchant bore the fee of 375.
    const wallet = await harness.wallet();
    expect(postedTransfer(wallet, collectionTransferId(ref))?.amount).toBe(24_625);
    expect(holdOf(wallet, feeHoldId(ref))).toEqual({ amount: 375, status: 'RELEASED' });
    expect(holdOf(wallet, prnHoldId(ref))).toEqual({ amount: 25_000, status: 'CAPTURED' });
    await harness.eventuallyBalance({ balance: balance - 375, available: balance - 375 });

    // Every consumed event delivered again changes nothing: no new event, no second payment call.
    await harness.redeliver(ref, COLLECTION_INTEGRATION_EVENTS.settled);
    await harness.redeliver(ref, COLLECTION_INTEGRATION_EVENTS.servicePaymentRequested);
    await settleDown();
    expect(typesOf(await harness.paymentEvents(ref))).toEqual(typesOf(events));
    expect((await harness.prnAtBiller(prn)).payment_calls).toBe(1);
    await harness.eventuallyBalance({ balance: balance - 375, available: balance - 375 });
  });

  it('credits a completed collection without a PRN, once', async () => {
    const ref = await harness.initiate({ chargeCustomer: true });
    await harness.settle(ref, 'COMPLETED');
    await harness.eventuallyBalance({ balance: balance + 25_000, available: balance + 25_000 });
    await harness.redeliver(ref, COLLECTION_INTEGRATION_EVENTS.settled);
    await settleDown();
    await harness.eventuallyBalance({ balance: balance + 25_000, available: balance + 25_000 });
    expect(await harness.paymentEvents(ref)).toEqual([]);
  });

  it.each(['FAILED', 'CANCELLED'] as const)(
    'releases the fee hold and fails the payment when the collection is %s',
    async (status) => {
      const { ref, prn } = await validated(status);
      await harness.eventuallyBalance({ balance, available: balance - 375 });
      await harness.settle(ref, status);
      const events = await harness.eventuallyHas(ref, PUBLISHED.failed);
      expect(single(events, EVENTS.failed).data).toMatchObject({
        reason: 'COLLECTION_NOT_COMPLETED',
        statusMessage: `PRN not paid: the collection did not complete (${status})`,
      });
      await harness.eventuallyBalance({ balance, available: balance });
      expect((await harness.prnAtBiller(prn)).payment_calls).toBe(0);

      await harness.redeliver(ref, COLLECTION_INTEGRATION_EVENTS.settled);
      await settleDown(300);
      expect(typesOf(await harness.paymentEvents(ref))).toEqual(typesOf(events));
    },
  );

  it('retries a payment the biller could not take, later, and pays it once', async () => {
    const { ref, prn } = await validated();
    await harness.billerFaults({ fail_next: 2 });
    await harness.settle(ref, 'COMPLETED');
    const events = await harness.eventuallyHas(ref, PUBLISHED.completed);
    const failures = events.filter((event) => event.type === EVENTS.attemptFailed).map((event) => event.data);
    expect(failures).toEqual([
      expect.objectContaining({ attempt: 1, reason: expect.stringContaining('503') }),
      expect.objectContaining({ attempt: 2, reason: expect.stringContaining('503') }),
    ]);
    // The second attempt came no earlier than the schedule said (200 ms after the first failure).
    expect(Date.parse(failures[0].nextAttemptAt as string) - Date.parse(failures[0].failedAt as string)).toBe(200);
    const atBiller = await harness.prnAtBiller(prn);
    expect(atBiller).toMatchObject({ status: 'PAID', payment_calls: 3 });
    expect(atBiller.payments).toHaveLength(1);
    await harness.eventuallyBalance({ balance: balance - 375, available: balance - 375 });
    // Its timer is gone with the payment.
    await settleDown(300);
    const [{ count }] = await harness.paygate.infrastructure.sql.query<{ count: string }>(
      `select count(*) from jobs where queue = 'payment_timers' and payload->>'internalReference' = $1`,
      [ref],
    );
    expect(Number(count)).toBe(0);
  });

  it('gives up when the retries are spent: payments.ServicePaymentFailed, the hold released, the funds stay in the wallet', async () => {
    const { ref, prn } = await validated();
    await harness.billerFaults({ fail_next: 10 });
    await harness.settle(ref, 'COMPLETED');
    const events = await harness.eventuallyHas(ref, PUBLISHED.failed);
    expect(events.filter((event) => event.type === EVENTS.attemptFailed)).toHaveLength(2);
    expect(single(events, EVENTS.failed).data).toMatchObject({ reason: 'RETRIES_EXHAUSTED', attempts: 2 });
    expect(single(events, PUBLISHED.failed).data).toMatchObject({
      payment: { internalReference: ref, status: 'FAILED' },
    });
    // Three payment calls, all refused with 503; the PRN is still unpaid.
    expect(await harness.prnAtBiller(prn)).toMatchObject({ status: 'AVAILABLE', payment_calls: 3, payments: [] });
    const wallet = await harness.wallet();
    expect(holdOf(wallet, prnHoldId(ref))).toEqual({ amount: 25_000, status: 'RELEASED' });
    await harness.eventuallyBalance({ balance: balance + 24_625, available: balance + 24_625 });

    await harness.billerFaults({});
    await harness.redeliver(ref, COLLECTION_INTEGRATION_EVENTS.settled);
    await settleDown();
    expect(typesOf(await harness.paymentEvents(ref))).toEqual(typesOf(events));
    expect((await harness.prnAtBiller(prn)).payment_calls).toBe(3);
  });
});
