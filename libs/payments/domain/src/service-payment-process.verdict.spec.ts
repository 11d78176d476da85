import { DEFAULT_PAYMENT_RETRY } from './retry';
import { merchantBearsFee, onPrnLookedUp, onPrnLookupFailed, onVerdictRequested, serviceNameOf, type ProcessContext } from './service-payment-process';
import { apply, at, collection, deferValidation, PRN, prnDetails, REF, stateIn } from './payments-test-setup';

/** The process up to the PRN verdict: when to ask the biller, what an answer asks of the wallet, when to ask again. */
const context = (seconds = 5): ProcessContext => ({ now: at(seconds), retry: DEFAULT_PAYMENT_RETRY, statusPollMs: 2_000 });

describe('service payment process: the PRN verdict', () => {
  describe('given a collect-for-payment collection awaiting the verdict', () => {
    it('when no payment exists yet, then it asks the biller about the PRN', () => {
      expect(onVerdictRequested(collection({ prn: PRN }), null)).toEqual({ type: 'ValidatePrn', prn: PRN });
    });

    it('when the payment is opened but not yet asked about, then it asks (a crash came between opening and asking)', () => {
      expect(onVerdictRequested(collection({ prn: PRN }), stateIn('OPENED'))).toEqual({ type: 'ValidatePrn', prn: PRN });
    });

    it.each(['ELIGIBLE', 'REJECTED', 'PAYING'] as const)('when the payment is %s already, then a redelivery asks nothing', (situation) => {
      expect(onVerdictRequested(collection({ prn: PRN }), stateIn(situation))).toEqual({ type: 'AlreadyAsked' });
    });

    it('when the lookup was deferred, then the timer follows it up and a redelivery asks nothing', () => {
      expect(onVerdictRequested(collection({ prn: PRN }), apply(stateIn('OPENED'), deferValidation()))).toEqual({ type: 'AlreadyAsked' });
    });

    it.each([undefined, '', 'PRN-1', '1'.repeat(33)])('when the PRN is %p, then the request is discarded: the gateway accepts only 1 to 32 digits', (prn) => {
      expect(onVerdictRequested(collection({ prn }), null)).toMatchObject({ type: 'Discard' });
    });
  });

  describe('given the biller answered the lookup', () => {
    it('when the PRN is eligible and the merchant bears the fee, then the fee is to be held before the verdict is recorded', () => {
      expect(onPrnLookedUp(stateIn('OPENED'), prnDetails(), context())).toEqual({
        verdict: { eligible: true },
        feeHold: { type: 'Hold', wallet: { merchantId: 'merchant-1', currency: 'UGX' }, holdId: `fee:${REF}`, amount: 1215, at: at(5) },
      });
    });

    it.each([
      ['the customer pays the fee', { chargeCustomer: true }],
      ['there is no fee', { fee: 0, totalCredit: 81000 }],
    ])('when the PRN is eligible and %s, then nothing is held', (_case, overrides) => {
      const payment = apply(null, { type: 'Open', collection: collection(overrides), prn: PRN, serviceName: 'URA', at: at(0) });
      if (!payment) throw new Error('not opened');
      expect(onPrnLookedUp(payment, prnDetails(), context())).toEqual({ verdict: { eligible: true }, feeHold: null });
    });

    it('when the PRN is not eligible, then nothing is held, whoever bears the fee', () => {
      expect(onPrnLookedUp(stateIn('OPENED'), prnDetails({ status: 'PAID' }), context())).toMatchObject({
        verdict: { eligible: false, reasonCode: 'PRN_ALREADY_PAID' },
        feeHold: null,
      });
      expect(onPrnLookedUp(stateIn('OPENED'), null, context())).toMatchObject({ verdict: { eligible: false, reasonCode: 'PRN_NOT_FOUND' }, feeHold: null });
    });

    it("when the biller names the service, then the payment carries the biller's name, else the configured one", () => {
      expect(serviceNameOf(' URA - Domestic Tax ', 'Configured biller')).toBe('URA - Domestic Tax');
      expect(serviceNameOf('  ', 'Configured biller')).toBe('Configured biller');
      expect(serviceNameOf(undefined, 'Configured biller')).toBe('Configured biller');
    });
  });

  describe('given the biller could not be reached for the lookup', () => {
    it('when it is the first time, then the lookup is deferred to the first retry time', () => {
      expect(onPrnLookupFailed(stateIn('OPENED'), 'biller unavailable: 503', context(5))).toEqual({
        type: 'DeferValidation',
        attempt: 1,
        reason: 'biller unavailable: 503',
        nextAttemptAt: at(35),
        at: at(5),
      });
    });

    it('when it was deferred before, then the next deferral is the next attempt, later on the schedule', () => {
      const deferred = apply(stateIn('OPENED'), deferValidation(1, 5));
      if (!deferred) throw new Error('no payment');
      expect(onPrnLookupFailed(deferred, 'timeout', context(35))).toMatchObject({ attempt: 2, nextAttemptAt: at(95) });
    });

    it('when the retry schedule is spent, then it keeps asking at the longest delay (the collection deadline bounds the wait)', () => {
      const retry = { maxAttempts: 2, baseDelayMs: 1_000, maxDelayMs: 60_000 };
      const deferred = apply(stateIn('OPENED'), deferValidation(2, 5));
      if (!deferred) throw new Error('no payment');
      expect(onPrnLookupFailed(deferred, 'timeout', { ...context(10), retry })).toMatchObject({ attempt: 3, nextAttemptAt: at(70) });
    });
  });

  describe('who bears the fee', () => {
    it.each([
      [false, 1215, true],
      [true, 1215, false],
      [false, 0, false],
      [true, 0, false],
    ])('charge_customer=%p with a fee of %p: the merchant bears it: %p', (chargeCustomer, fee, bears) => {
      expect(merchantBearsFee({ chargeCustomer, fee })).toBe(bears);
    });
  });
});
