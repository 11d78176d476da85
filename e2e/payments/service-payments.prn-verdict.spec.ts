import {
  COLLECTION_INTEGRATION_EVENTS,
  PAYMENTS_INTEGRATION_EVENTS as PUBLISHED,
  FindServicePayment,
  type PrnRejectedV1,
  type PrnValidatedV1,
} from '@paygate/contracts';
import {
  SERVICE_PAYMENT_EVENT_TYPES as EVENTS,
  type PrnValidationDeferredV1,
  feeHoldId,
  holdOf,
} from '@paygate/payments-domain';
import { PaymentsHarness, settleDown, single, typesOf, type CollectionTerms } from './service-payments-test-setup';

/**
 * service-payments answers a collect-for-payment collection (collections.ServicePaymentRequested)
 * with the PRN verdict: payments.PrnValidated, the fee the merchant bears held in its wallet, or
 * payments.PrnRejected with the reason collections cancels with.
 */
describe('service-payments: the PRN verdict', () => {
  let harness: PaymentsHarness;

  beforeAll(async () => {
    harness = await PaymentsHarness.start();
    await harness.topUp(1_000);
    await harness.eventuallyBalance({ balance: 1_000, available: 1_000 });
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('validates an eligible PRN, holds the fee the merchant bears and publishes payments.PrnValidated', async () => {
    const prn = await harness.createPrn();
    const ref = await harness.initiate({ prn, outcome: 'CANCELLED' });
    const events = await harness.eventuallyHas(ref, PUBLISHED.prnValidated);
    expect(typesOf(events)).toEqual([EVENTS.opened, EVENTS.prnConfirmed, PUBLISHED.prnValidated]);
    const validated = single(events, PUBLISHED.prnValidated).data as unknown as PrnValidatedV1;
    expect(validated.payment).toMatchObject({
      internalReference: ref,
      merchantId: harness.merchant.merchant.id,
      prn,
      requestAmount: 25_000,
      fee: 375,
      status: 'PENDING',
      statusMessage: 'PRN validated. Awaiting the collection',
      serviceName: 'URA - Domestic Tax',
      billerPaymentId: null,
    });
    expect(single(events, EVENTS.prnConfirmed).data).toMatchObject({ feeHoldId: feeHoldId(ref) });
    expect(holdOf(await harness.wallet(), feeHoldId(ref))).toEqual({ amount: 375, status: 'HELD' });
    await harness.eventuallyBalance({ balance: 1_000, available: 625 });

    expect(await harness.eventuallyServicePayment(ref, 'PRN validated. Awaiting the collection')).toEqual({
      prn,
      status: 'PENDING',
      statusMessage: 'PRN validated. Awaiting the collection',
      serviceName: 'URA - Domestic Tax',
      amount: 25_000,
      currency: 'UGX',
      billerPaymentId: null,
    });

    // Delivered again: nothing new is decided, held or published.
    await harness.redeliver(ref, COLLECTION_INTEGRATION_EVENTS.servicePaymentRequested);
    await settleDown();
    expect(typesOf(await harness.paymentEvents(ref))).toEqual(typesOf(events));
    await harness.eventuallyBalance({ balance: 1_000, available: 625 });
    // Leave the wallet as it was for the cases below: the collection does not complete.
    await harness.prnAccepted(ref);
    await harness.settle(ref, 'CANCELLED');
    await harness.eventuallyHas(ref, PUBLISHED.failed);
    await harness.eventuallyBalance({ balance: 1_000, available: 1_000 });
  });

  it('defers the verdict while the biller cannot be reached, asks again on the retry schedule, then validates', async () => {
    const prn = await harness.createPrn();
    await harness.billerFaults({ fail_lookups_next: 2 });
    const ref = await harness.initiate({ prn, outcome: 'CANCELLED' });
    const events = await harness.eventuallyHas(ref, PUBLISHED.prnValidated);
    expect(typesOf(events)).toEqual([
      EVENTS.opened,
      EVENTS.prnValidationDeferred,
      EVENTS.prnValidationDeferred,
      EVENTS.prnConfirmed,
      PUBLISHED.prnValidated,
    ]);
    const deferrals = events
      .filter((event) => event.type === EVENTS.prnValidationDeferred)
      .map((event) => event.data as unknown as PrnValidationDeferredV1);
    expect(deferrals.map((deferral) => deferral.attempt)).toEqual([1, 2]);
    expect(deferrals[0].reason).toContain('503');
    // PAYMENT_RETRY_BASE_MS=200, doubling.
    expect(deferrals.map((deferral) => Date.parse(deferral.nextAttemptAt) - Date.parse(deferral.deferredAt))).toEqual([
      200, 400,
    ]);
    await harness.eventuallyBalance({ balance: 1_000, available: 625 });
    await harness.prnAccepted(ref);
    await harness.settle(ref, 'CANCELLED');
    await harness.eventuallyHas(ref, PUBLISHED.failed);
    await harness.eventuallyBalance({ balance: 1_000, available: 1_000 });
  });

  it('fails the payment of a collection whose deadline passed while its verdict was deferred, holding nothing', async () => {
    const prn = await harness.createPrn();
    await harness.billerFaults({ fail_lookups_next: 1_000 });
    try {
      const ref = await harness.initiate({ prn });
      await harness.eventuallyHas(ref, EVENTS.prnValidationDeferred);
      await harness.passPrnDeadline(ref);
      const events = await harness.eventuallyHas(ref, PUBLISHED.failed);
      expect(typesOf(events).filter((type) => type !== EVENTS.prnValidationDeferred)).toEqual([
        EVENTS.opened,
        EVENTS.collectionSettled,
        EVENTS.failed,
        PUBLISHED.failed,
      ]);
      await harness.eventuallyBalance({ balance: 1_000, available: 1_000 });
    } finally {
      await harness.billerFaults({});
    }
  });

  it('holds nothing when the customer bears the fee', async () => {
    const prn = await harness.createPrn();
    const ref = await harness.initiate({ prn, chargeCustomer: true });
    const events = await harness.eventuallyHas(ref, PUBLISHED.prnValidated);
    expect(single(events, EVENTS.prnConfirmed).data).not.toHaveProperty('feeHoldId');
    expect(holdOf(await harness.wallet(), feeHoldId(ref))).toBeUndefined();
  });

  const past = new Date(Date.now() - 60_000).toISOString();
  const ineligible: [string, () => Promise<CollectionTerms>, string, string][] = [
    ['an unknown PRN', async () => ({ prn: '9990000000001' }), 'PRN_NOT_FOUND', 'unknown PRN'],
    [
      'a paid PRN',
      async () => ({ prn: await harness.createPrn({ status: 'PAID' }) }),
      'PRN_ALREADY_PAID',
      'already paid',
    ],
    [
      'a PRN with a payment in progress',
      async () => ({ prn: await harness.createPrn({ status: 'SUBMITTED' }) }),
      'PRN_SUBMITTED',
      'a payment is already submitted',
    ],
    ['an expired PRN', async () => ({ prn: await harness.createPrn({ status: 'EXPIRED' }) }), 'PRN_EXPIRED', 'expired'],
    // The sandbox biller reports an AVAILABLE PRN past its expiry as EXPIRED.
    [
      'a PRN past its expiry',
      async () => ({ prn: await harness.createPrn({ expires_at: past }) }),
      'PRN_EXPIRED',
      'expired',
    ],
    [
      'another amount',
      async () => ({ prn: await harness.createPrn({ amount: 30_000 }) }),
      'AMOUNT_MISMATCH',
      "amount UGX 25,000 differs from the PRN's UGX 30,000",
    ],
  ];

  it.each(ineligible)(
    'rejects %s with payments.PrnRejected and its reason',
    async (_case, terms, reasonCode, reason) => {
      const ref = await harness.initiate(await terms());
      const events = await harness.eventuallyHas(ref, PUBLISHED.prnRejected);
      expect(typesOf(events)).toEqual([EVENTS.opened, EVENTS.prnRejected, PUBLISHED.prnRejected]);
      const rejected = single(events, PUBLISHED.prnRejected).data as unknown as PrnRejectedV1;
      expect(rejected).toMatchObject({
        reasonCode,
        reason,
        payment: { internalReference: ref, status: 'FAILED', statusMessage: `PRN not eligible: ${reason}` },
      });
      // Nothing is held for a PRN that will not be paid.
      expect(holdOf(await harness.wallet(), feeHoldId(ref))).toBeUndefined();

      await harness.redeliver(ref, COLLECTION_INTEGRATION_EVENTS.servicePaymentRequested);
      await settleDown(300);
      expect(typesOf(await harness.paymentEvents(ref))).toEqual(typesOf(events));
    },
  );

  it('rejects with FEE_NOT_COVERED when the wallet cannot hold the fee the merchant bears', async () => {
    const poor = await harness.newMerchant('Empty wallet');
    const ref = await harness.initiate({ prn: await harness.createPrn() }, poor.merchant.id);
    const events = await harness.eventuallyHas(ref, PUBLISHED.prnRejected);
    expect(single(events, PUBLISHED.prnRejected).data).toMatchObject({
      reasonCode: 'FEE_NOT_COVERED',
      reason: 'wallet balance cannot cover the fee',
    });
    expect(await harness.wallet('UGX', poor.merchant.id)).toBeNull();
  });

  it("answers findServicePayment for the merchant's own collection only", async () => {
    const ref = await harness.initiate({ prn: await harness.createPrn() });
    await harness.eventuallyHas(ref, PUBLISHED.prnValidated);
    const other = await harness.newMerchant();
    const send = (merchantId: string, internalReference: string) =>
      harness.paygate.infrastructure.commands.send(new FindServicePayment({ merchantId, internalReference }));
    expect((await send(harness.merchant.merchant.id, ref)).servicePayment).toMatchObject({ status: 'PENDING' });
    expect(await send(other.merchant.id, ref)).toEqual({ servicePayment: null });
    expect(await send(harness.merchant.merchant.id, 'PG000000000000000000000000')).toEqual({ servicePayment: null });
  });
});
