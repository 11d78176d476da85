/**
 * The ServicePayment aggregate (fixtures in payments-test-setup.ts). This file: what each
 * transition records: Open from the collection's record, the PRN verdict with the fee hold,
 * the collection settling, the biller's answers, giving up; and rebuilding from the events.
 */
import { UGX_81000_MERCHANT_PAYS_FEE } from '@paygate/testing';
import { SERVICE_PAYMENT_EVENT_TYPES as EVENTS } from './events';
import { FEE_NOT_COVERED } from './eligibility';
import { MESSAGES } from './messages';
import { toPublishedServicePayment } from './service-payment-decider';
import { feeHoldId, paymentIdempotencyKey } from './references';
import {
  decideServicePayment,
  evolveServicePayment,
  rebuildServicePayment,
  type ServicePaymentState,
} from './service-payment';
import {
  ALREADY_PAID,
  apply,
  at,
  attempt,
  commandsTo,
  decideChecked,
  deferValidation,
  ELIGIBLE,
  emitted,
  giveUp,
  open,
  PRN,
  recordEligibility,
  REF,
  refused,
  rejection,
  retryable,
  settled,
  stateIn,
  succeeded,
  T0,
} from './payments-test-setup';

describe('Open', () => {
  it('records the collection’s record, the PRN and the service, awaiting validation', () => {
    const [event] = decideChecked(open(), null);
    expect(event).toEqual({
      type: EVENTS.opened,
      data: {
        id: 7,
        merchantId: 'merchant-1',
        merchantReference: 'tax-2025-03',
        internalReference: REF,
        ...UGX_81000_MERCHANT_PAYS_FEE,
        customerName: 'Jane Doe',
        prn: PRN,
        serviceName: 'URA',
        livemode: false,
        openedAt: T0,
      },
    });
    expect(evolveServicePayment(null, event)).toMatchObject({
      phase: 'OPENED',
      status: 'PENDING',
      statusMessage: MESSAGES.opened,
      attempts: 0,
      updatedAt: T0,
    });
  });

  it('carries a live collection’s livemode, which what it publishes says', () => {
    const [event] = decideChecked(open({ livemode: true }), null);
    expect(event.data).toMatchObject({ livemode: true });
    const payment = evolveServicePayment(null, event);
    expect(payment && toPublishedServicePayment(payment).livemode).toBe(true);
  });

  it.each(['1'.repeat(33), '225000012345A', ' 2250000123456', ''])(
    'refuses a PRN that is not 1 to 32 digits (%j) as invalid_request',
    (prn) => {
      const error = rejection(() => decideServicePayment(open({}, prn), null));
      expect(error.code).toBe('invalid_request');
      expect(error.details).toEqual({ errors: [{ field: 'prn', message: 'prn must be 1 to 32 digits' }] });
    },
  );
});

describe('DeferValidation', () => {
  it('records that the biller could not be reached and when it is asked again; the verdict still comes after', () => {
    const events = decideChecked(deferValidation(1, 5), stateIn('OPENED'));
    expect(events).toEqual([
      {
        type: EVENTS.prnValidationDeferred,
        data: {
          internalReference: REF,
          attempt: 1,
          reason: 'biller unavailable: 503',
          nextAttemptAt: at(35),
          deferredAt: at(5),
        },
      },
    ]);
    const deferred = events.reduce(evolveServicePayment, stateIn('OPENED'));
    expect(deferred).toMatchObject({
      phase: 'OPENED',
      status: 'PENDING',
      validationAttempts: 1,
      nextAttemptAt: at(35),
      statusMessage: MESSAGES.validationDeferred,
    });
    expect(decideChecked(deferValidation(1, 6), deferred)).toEqual([]);
    expect(decideChecked(deferValidation(2, 40), deferred).map((event) => event.type)).toEqual([
      EVENTS.prnValidationDeferred,
    ]);
    const validated = decideChecked(recordEligibility(ELIGIBLE, 'HELD', 40), deferred).reduce(
      evolveServicePayment,
      deferred,
    );
    expect(validated).toMatchObject({ phase: 'ELIGIBLE', nextAttemptAt: undefined });
  });
});

describe('RecordEligibility', () => {
  it('an eligible PRN with the fee held: PrnEligibilityConfirmed naming the fee hold', () => {
    const events = decideChecked(recordEligibility(ELIGIBLE, 'HELD', 5), stateIn('OPENED'));
    expect(events).toEqual([
      {
        type: EVENTS.prnConfirmed,
        data: { internalReference: REF, prn: PRN, feeHoldId: feeHoldId(REF), validatedAt: at(5) },
      },
    ]);
    expect(events.reduce(evolveServicePayment, stateIn('OPENED'))).toMatchObject({
      phase: 'ELIGIBLE',
      status: 'PENDING',
      feeHoldId: 'fee:' + REF,
      statusMessage: MESSAGES.prnValidated,
    });
  });

  it('charge_customer=true needs no fee hold', () => {
    const state = apply(null, open({ chargeCustomer: true, transactionAmount: 82215, totalCredit: 81000 }));
    const [event] = decideChecked(recordEligibility(ELIGIBLE, 'NOT_NEEDED'), state);
    expect(event.data).toEqual({ internalReference: REF, prn: PRN, validatedAt: at(5) });
  });

  it('no fee needs no hold either, even when the merchant would bear it', () => {
    const state = apply(null, open({ fee: 0, totalCredit: 81000 }));
    expect(decideChecked(recordEligibility(ELIGIBLE, 'NOT_NEEDED'), state).map((event) => event.type)).toEqual([
      EVENTS.prnConfirmed,
    ]);
  });

  it('a hold placed although charge_customer=true is recorded, so it is released like any other', () => {
    const state = apply(null, open({ chargeCustomer: true }));
    expect(decideChecked(recordEligibility(ELIGIBLE, 'HELD'), state)[0].data).toMatchObject({
      feeHoldId: feeHoldId(REF),
    });
  });

  it('an ineligible PRN: PrnEligibilityRejected with the reason, final and FAILED', () => {
    const events = decideChecked(recordEligibility(ALREADY_PAID, 'NOT_NEEDED', 5), stateIn('OPENED'));
    expect(events).toEqual([
      {
        type: EVENTS.prnRejected,
        data: {
          internalReference: REF,
          prn: PRN,
          reasonCode: 'PRN_ALREADY_PAID',
          reason: 'already paid',
          statusMessage: 'PRN not eligible: already paid',
          rejectedAt: at(5),
        },
      },
    ]);
    expect(events.reduce(evolveServicePayment, stateIn('OPENED'))).toMatchObject({
      phase: 'REJECTED',
      status: 'FAILED',
      statusMessage: 'PRN not eligible: already paid',
      rejection: { reasonCode: 'PRN_ALREADY_PAID', reason: 'already paid' },
    });
  });

  it('an eligible PRN whose fee the wallet cannot hold is rejected: "wallet balance cannot cover the fee"', () => {
    const [event] = decideChecked(recordEligibility(ELIGIBLE, 'REFUSED'), stateIn('OPENED'));
    expect(FEE_NOT_COVERED).toEqual({
      eligible: false,
      reasonCode: 'FEE_NOT_COVERED',
      reason: 'wallet balance cannot cover the fee',
    });
    expect(event.data).toMatchObject({
      reasonCode: 'FEE_NOT_COVERED',
      reason: 'wallet balance cannot cover the fee',
      statusMessage: 'PRN not eligible: wallet balance cannot cover the fee',
    });
  });

  it('refuses, as programming errors, a merchant-borne fee not held and a fee held for an ineligible PRN', () => {
    expect(() => decideServicePayment(recordEligibility(ELIGIBLE, 'NOT_NEEDED'), stateIn('OPENED'))).toThrow(
      /hold it before recording eligibility/,
    );
    expect(() => decideServicePayment(recordEligibility(ALREADY_PAID, 'HELD'), stateIn('OPENED'))).toThrow(
      /would never be released/,
    );
  });
});

describe('RecordCollectionSettled', () => {
  it('COMPLETED while ELIGIBLE: records it and requests the payment with the key derived from the reference', () => {
    const events = decideChecked(settled('COMPLETED', 60), stateIn('ELIGIBLE'));
    expect(events).toEqual([
      {
        type: EVENTS.collectionSettled,
        data: {
          internalReference: REF,
          collectionStatus: 'COMPLETED',
          collectionStatusMessage: 'Transaction completed successfully',
          recordedAt: at(60),
        },
      },
      {
        type: EVENTS.paymentRequested,
        data: {
          internalReference: REF,
          prn: PRN,
          amount: 81000,
          currency: 'UGX',
          idempotencyKey: paymentIdempotencyKey(REF),
          requestedAt: at(60),
        },
      },
    ]);
    expect(events.reduce(evolveServicePayment, stateIn('ELIGIBLE'))).toMatchObject({
      phase: 'PAYING',
      collectionStatus: 'COMPLETED',
      idempotencyKey: paymentIdempotencyKey(REF),
      statusMessage: MESSAGES.paying,
    });
  });

  it('COMPLETED before the verdict: remembered, and the eligible verdict then requests the payment at once', () => {
    const state = stateIn('OPENED_COLLECTED');
    expect(state).toMatchObject({ phase: 'OPENED', collectionStatus: 'COMPLETED' });
    const events = decideChecked(recordEligibility(ELIGIBLE, 'HELD', 40), state);
    expect(events[1]).toEqual({
      type: EVENTS.paymentRequested,
      data: expect.objectContaining({ idempotencyKey: paymentIdempotencyKey(REF), requestedAt: at(40) }),
    });
  });

  it.each(['FAILED', 'CANCELLED'] as const)('%s: FAILED, saying the collection did not complete', (status) => {
    for (const situation of ['OPENED', 'ELIGIBLE'] as const) {
      const events = decideChecked(settled(status, 60), stateIn(situation));
      expect(events[1]).toEqual({
        type: EVENTS.failed,
        data: {
          internalReference: REF,
          reason: 'COLLECTION_NOT_COMPLETED',
          statusMessage: `PRN not paid: the collection did not complete (${status})`,
          attempts: 0,
          failedAt: at(60),
        },
      });
      expect(events.reduce(evolveServicePayment, stateIn(situation))).toMatchObject({
        phase: 'FAILED',
        status: 'FAILED',
        failureReason: 'COLLECTION_NOT_COMPLETED',
        collectionStatus: status,
      });
    }
  });

  it('PENDING is not a settlement (programming error)', () => {
    expect(() => decideServicePayment(settled('PENDING'), stateIn('ELIGIBLE'))).toThrow(/has not settled/);
  });
});

describe('RecordPaymentAttempt and GiveUp', () => {
  it('success: COMPLETED with the biller’s payment id and receipt', () => {
    const events = decideChecked(succeeded(120), stateIn('PAYING_RETRIED'));
    expect(events).toEqual([
      {
        type: EVENTS.completed,
        data: {
          internalReference: REF,
          billerPaymentId: 'ura-pay-1',
          receiptNumber: 'RCPT-1',
          statusMessage: MESSAGES.completed,
          completedAt: at(120),
        },
      },
    ]);
    expect(events.reduce(evolveServicePayment, stateIn('PAYING_RETRIED'))).toMatchObject({
      phase: 'COMPLETED',
      status: 'COMPLETED',
      billerPaymentId: 'ura-pay-1',
      nextAttemptAt: undefined,
    });
  });

  it('success without a receipt leaves the field out', () => {
    const [event] = decideChecked(attempt({ result: 'SUCCEEDED', billerPaymentId: 'ura-pay-2' }), stateIn('PAYING'));
    expect(event.data).not.toHaveProperty('receiptNumber');
  });

  it('a retryable failure records the attempt and the next time; an older or repeated report changes nothing', () => {
    let state: ServicePaymentState = stateIn('PAYING');
    const first = decideChecked(retryable(1, 70), state);
    expect(first).toEqual([
      {
        type: EVENTS.attemptFailed,
        data: {
          internalReference: REF,
          attempt: 1,
          reason: 'biller unavailable (503)',
          nextAttemptAt: at(100),
          failedAt: at(70),
        },
      },
    ]);
    state = first.reduce(evolveServicePayment, state);
    expect(state).toMatchObject({
      phase: 'PAYING',
      attempts: 1,
      nextAttemptAt: at(100),
      statusMessage: `Paying the PRN: attempt 1 failed, retrying at ${at(100)}`,
    });
    state = apply(state, retryable(2, 100));
    expect(state).toMatchObject({ attempts: 2, nextAttemptAt: at(160) });
    expect(decideChecked(retryable(1, 170), state)).toEqual([]);
    expect(decideChecked(retryable(2, 170), state)).toEqual([]);
  });

  it('a retryable failure needs an attempt number ≥ 1', () => {
    expect(() => decideServicePayment(retryable(0), stateIn('PAYING'))).toThrow(RangeError);
  });

  it('a final refusal: FAILED with the biller’s reason', () => {
    const [event] = decideChecked(refused(120), stateIn('PAYING_RETRIED'));
    expect(event).toEqual({
      type: EVENTS.failed,
      data: {
        internalReference: REF,
        reason: 'BILLER_REFUSED',
        statusMessage: 'PRN payment refused by the biller: PRN cancelled by URA',
        attempts: 1,
        failedAt: at(120),
      },
    });
  });

  it('an empty biller reason is recorded as "no reason given"', () => {
    const retry = decideChecked(
      attempt({ result: 'RETRYABLE_FAILURE', attempt: 1, reason: ' ', nextAttemptAt: at(100) }),
      stateIn('PAYING'),
    );
    expect(retry[0].data).toMatchObject({ reason: 'no reason given' });
    const refusal = decideChecked(attempt({ result: 'REFUSED', reason: '' }), stateIn('PAYING'));
    expect(refusal[0].data).toMatchObject({ statusMessage: 'PRN payment refused by the biller: no reason given' });
  });

  it('GiveUp: FAILED with the attempts made', () => {
    let state: ServicePaymentState = stateIn('PAYING');
    for (let n = 1; n <= 3; n++) state = apply(state, retryable(n, 60 + n * 100));
    const [event] = decideChecked(giveUp(3600), state);
    expect(event.data).toEqual({
      internalReference: REF,
      reason: 'RETRIES_EXHAUSTED',
      statusMessage: 'PRN payment failed: the biller did not accept it after 3 attempts',
      attempts: 3,
      failedAt: at(3600),
    });
    const [single] = decideChecked(giveUp(), stateIn('PAYING_RETRIED'));
    expect(single.data).toMatchObject({
      statusMessage: 'PRN payment failed: the biller did not accept it after 1 attempt',
    });
  });
});

describe('rebuild', () => {
  it.each(['REJECTED', 'COMPLETED', 'FAILED', 'PAYING_RETRIED'] as const)(
    'folding the events of %s gives the state decided step by step',
    (situation) => {
      let state: ServicePaymentState = null;
      const events = [];
      for (const command of commandsTo(situation)) {
        const decided = decideChecked(command, state);
        events.push(...decided);
        state = decided.reduce(evolveServicePayment, state);
      }
      expect(rebuildServicePayment(JSON.parse(JSON.stringify(events)))).toEqual(JSON.parse(JSON.stringify(state)));
    },
  );

  it('ignores events for a payment never opened', () => {
    expect(
      evolveServicePayment(null, {
        type: EVENTS.completed,
        data: { internalReference: REF, billerPaymentId: 'x', statusMessage: 'x', completedAt: T0 },
      }),
    ).toBeNull();
  });
});

describe('the events decide() emitted in this file', () => {
  it('cover every ServicePayment event type', () => {
    expect([...new Set(emitted.map((event) => event.type))].sort()).toEqual(Object.values(EVENTS).sort());
  });
});
