import { DEFAULT_PAYMENT_RETRY } from './retry';
import { afterRecorded, holdsToRelease, isFinal, onBillerAnswered, onBillerUnreachable, onTimerDue, type ProcessContext } from './service-payment-process';
import type { ServicePayment, ServicePaymentCommand } from './service-payment';
import { ALREADY_PAID, apply, at, commandsTo, FINAL_SITUATIONS, open, PRN, recordEligibility, REF, settled, SITUATIONS, stateIn } from './payments-test-setup';

/** The process from the payment request on: paying, answers of the biller, retries, giving up, releasing holds. */
const context = (seconds = 100): ProcessContext => ({ now: at(seconds), retry: DEFAULT_PAYMENT_RETRY, statusPollMs: 2_000 });
const WALLET = { merchantId: 'merchant-1', currency: 'UGX' };
const PAY = {
  type: 'Pay',
  hold: { type: 'Hold', wallet: WALLET, holdId: `prn:${REF}`, amount: 81000, replaces: `fee:${REF}`, at: at(100) },
  request: { prn: PRN, amount: 81000, currency: 'UGX', idempotencyKey: expect.any(String), reference: REF },
};
function payment(...commands: ServicePaymentCommand[]): ServicePayment {
  const state = commands.reduce(apply, null);
  if (!state) throw new Error('no payment');
  return state;
}
const released = (...holdIds: string[]) => ({
  type: 'Release',
  holds: holdIds.map((holdId) => ({ type: 'ReleaseHold', wallet: WALLET, holdId, at: at(100) })),
});

describe('service payment process: paying the PRN', () => {
  describe('given a command was recorded', () => {
    it('when it moved the payment to PAYING, then the PRN amount is held (replacing the fee hold) and the biller paid with the payment key', () => {
      const paying = stateIn('PAYING');
      expect(afterRecorded(paying, context(), { payNow: true })).toEqual({ ...PAY, request: { ...PAY.request, idempotencyKey: paying.idempotencyKey } });
    });

    it('when the payment was PAYING already (a redelivery), then it waits for the biller: the timer pays after a crash', () => {
      expect(afterRecorded(stateIn('PAYING'), context(), { payNow: false })).toEqual({ type: 'Wait', until: at(102) });
    });

    it('when an attempt failed, then it waits for the recorded next attempt', () => {
      expect(afterRecorded(stateIn('PAYING_RETRIED'), context(), { payNow: false })).toEqual({ type: 'Wait', until: stateIn('PAYING_RETRIED').nextAttemptAt });
    });

    it.each(['OPENED', 'ELIGIBLE', 'COMPLETED'] as const)('when the payment is %s, then there is nothing to do now', (situation) => {
      expect(afterRecorded(stateIn(situation), context(), { payNow: true })).toEqual({ type: 'Done' });
    });

    it('when the payment failed after the collection completed, then the fee and PRN holds are released', () => {
      expect(afterRecorded(stateIn('FAILED'), context(), { payNow: true })).toEqual(released(`fee:${REF}`, `prn:${REF}`));
    });
  });

  describe('given a payment that ended without paying', () => {
    it('when the collection did not complete, then only the fee hold is released (no PRN hold was placed)', () => {
      expect(holdsToRelease(payment(...commandsTo('ELIGIBLE'), settled('FAILED')), context())).toEqual(released(`fee:${REF}`).holds);
    });

    it('when the PRN was rejected, then the fee hold is released (a hold placed for a refused fee changes nothing)', () => {
      expect(holdsToRelease(stateIn('REJECTED'), context())).toEqual(released(`fee:${REF}`).holds);
    });

    it('when the customer paid the fee, then only the PRN hold is released', () => {
      const customerPays = payment(open({ chargeCustomer: true }), recordEligibility({ eligible: true }, 'NOT_NEEDED'), settled('COMPLETED'), {
        type: 'GiveUp',
        at: at(99),
      });
      expect(holdsToRelease(customerPays, context())).toEqual(released(`prn:${REF}`).holds);
    });

    it('when the payment completed, then nothing is released: the PRN hold was captured', () => {
      expect(holdsToRelease(stateIn('COMPLETED'), context())).toEqual([]);
    });

    it('when the PRN was rejected and the customer paid the fee, then there is nothing to release', () => {
      expect(holdsToRelease(payment(open({ chargeCustomer: true }), recordEligibility(ALREADY_PAID, 'NOT_NEEDED')), context())).toEqual([]);
    });
  });

  describe('given a due timer', () => {
    it('when there is no payment, then it is done', () => {
      expect(onTimerDue(null, context())).toEqual({ type: 'Done' });
    });

    it('when the PRN lookup was deferred and its time has come, then the biller is asked again', () => {
      expect(onTimerDue(stateIn('OPENED'), context())).toEqual({ type: 'ValidatePrn', prn: PRN });
    });

    it('when PAYING and due, then it pays again with the same key', () => {
      expect(onTimerDue(stateIn('PAYING'), context())).toMatchObject({ type: 'Pay', request: { idempotencyKey: stateIn('PAYING').idempotencyKey } });
    });

    it('when the next attempt is not due yet (a timer fired early), then it waits for it', () => {
      const retried = stateIn('PAYING_RETRIED');
      expect(onTimerDue(retried, context(71))).toEqual({ type: 'Wait', until: retried.nextAttemptAt });
    });

    it('when the payment failed, then its holds are released; when it completed or awaits the settlement, nothing', () => {
      expect(onTimerDue(stateIn('FAILED'), context())).toEqual(released(`fee:${REF}`, `prn:${REF}`));
      expect(onTimerDue(stateIn('COMPLETED'), context())).toEqual({ type: 'Done' });
      expect(onTimerDue(stateIn('ELIGIBLE'), context())).toEqual({ type: 'Done' });
    });
  });

  describe('given the biller answered a payment', () => {
    it('when it paid, then the PRN hold is captured to biller settlement and the success recorded', () => {
      expect(onBillerAnswered(stateIn('PAYING'), { status: 'SUCCESSFUL', billerPaymentId: 'ura-1', receiptNumber: 'R-1' }, context())).toEqual({
        type: 'Capture',
        capture: { type: 'CaptureHold', wallet: WALLET, holdId: `prn:${REF}`, transferId: `prn-payment:${REF}`, toAccount: 'biller_settlement', at: at(100) },
        record: { type: 'RecordPaymentAttempt', outcome: { result: 'SUCCEEDED', billerPaymentId: 'ura-1', receiptNumber: 'R-1' }, at: at(100) },
      });
    });

    it('when it is still processing, then it is asked again after the status poll interval', () => {
      expect(onBillerAnswered(stateIn('PAYING'), { status: 'PENDING' }, context())).toEqual({ type: 'Wait', until: at(102) });
    });
  });

  describe('given the biller could not be reached for a payment', () => {
    it('when attempts remain, then the failed attempt is recorded with the next time of the schedule', () => {
      expect(onBillerUnreachable(stateIn('PAYING_RETRIED'), 'biller unavailable (503)', context())).toEqual({
        type: 'Record',
        command: {
          type: 'RecordPaymentAttempt',
          outcome: { result: 'RETRYABLE_FAILURE', attempt: 2, reason: 'biller unavailable (503)', nextAttemptAt: at(160) },
          at: at(100),
        },
      });
    });

    it('when the last attempt failed, then it gives up unless the biller made a payment for the key', () => {
      const retry = { ...DEFAULT_PAYMENT_RETRY, maxAttempts: 2 };
      expect(onBillerUnreachable(stateIn('PAYING_RETRIED'), 'timeout', { ...context(), retry })).toEqual({
        type: 'GiveUpUnlessPaid',
        giveUp: { type: 'GiveUp', at: at(100) },
      });
    });
  });

  it('the final phases are the decider’s: REJECTED, COMPLETED, FAILED', () => {
    expect(SITUATIONS.filter((situation) => isFinal(stateIn(situation)))).toEqual(FINAL_SITUATIONS);
    expect(isFinal(null)).toBe(false);
  });
});
