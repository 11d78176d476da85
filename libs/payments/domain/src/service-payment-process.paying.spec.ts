/**
 * The service payment process (setup in service-payment-process-test-setup.ts). This file: paying
 * the PRN once the collection completed: the holds, the biller's answers, its refusals, the
 * retries and giving up.
 */
import { paymentIdempotencyKey } from './references';
import { at, eventsTo, PRN, REF, WALLET } from './payments-test-setup';
import {
  collectionSettled,
  given,
  holdPrnAmount,
  NO_FUNDS_FOR_PRN,
  outline,
  PAID,
  PROCESSING,
  TIMER_DUE,
  type Script,
} from './service-payment-process-test-setup';

const KEY = paymentIdempotencyKey(REF);
const RELEASE_BOTH = ['Execute ReleaseHold', 'Execute ReleaseHold', 'Done'];
const releases = (...holdIds: string[]) =>
  holdIds.map((holdId) => ({ type: 'Execute', command: { type: 'ReleaseHold', wallet: WALLET, holdId, at: at(60) } }));
const SHORT_RETRY = { maxAttempts: 2, baseDelayMs: 30_000, maxDelayMs: 900_000 };

/** The biller, asked after a failed payment call, says it paid: the PRN hold is captured. */
const ASKS_AND_CAPTURES = ['Call AskBiller', 'Execute CaptureHold', 'Execute RecordPaymentAttempt', 'Done'];

/** The collection completes while its payment is eligible: the PRN is paid at once. */
const settleEligible = (script: Script) =>
  given(eventsTo('ELIGIBLE')).when(collectionSettled('COMPLETED'), at(60), script);

describe('service payment process: paying the PRN', () => {
  describe('given an eligible payment, when its collection completes', () => {
    it('then the wallet is credited, the PRN amount held in place of the fee, and the biller paid with the payment key', async () => {
      const run = await settleEligible({ biller: { pay: [PAID] } });
      expect(outline(run.outputs).slice(0, 4)).toEqual([
        'Execute CreditCollection',
        'Execute RecordCollectionSettled',
        'Execute Hold',
        'Call PayBiller',
      ]);
      expect(run.outputs.slice(2, 4)).toEqual([
        holdPrnAmount(at(60)),
        {
          type: 'Call',
          call: {
            type: 'PayBiller',
            request: { prn: PRN, amount: 81000, currency: 'UGX', idempotencyKey: KEY, reference: REF },
          },
        },
      ]);
    });

    it('and the biller pays, then the PRN hold is captured to biller settlement and the payment completes with its receipt', async () => {
      const run = await settleEligible({ biller: { pay: [PAID] } });
      expect(run.outputs.slice(4)).toEqual([
        {
          type: 'Execute',
          command: {
            type: 'CaptureHold',
            wallet: WALLET,
            holdId: `prn:${REF}`,
            transferId: `prn-payment:${REF}`,
            toAccount: 'biller_settlement',
            at: at(60),
          },
        },
        {
          type: 'Execute',
          command: {
            type: 'RecordPaymentAttempt',
            outcome: { result: 'SUCCEEDED', billerPaymentId: 'ura-pay-7', receiptNumber: 'RCPT-7' },
            at: at(60),
          },
        },
        { type: 'Done' },
      ]);
      expect(run.payment).toMatchObject({
        phase: 'COMPLETED',
        billerPaymentId: PAID.billerPaymentId,
        receiptNumber: PAID.receiptNumber,
      });
    });

    it('and the biller still processes it, then it is asked again (same key) a status poll later', async () => {
      const run = await settleEligible({ biller: { pay: [PROCESSING] } });
      expect(run.outputs.slice(4)).toEqual([{ type: 'RetryAt', at: at(62) }]);
      expect(run.payment).toMatchObject({ phase: 'PAYING' });
    });

    it('and the wallet cannot cover the PRN amount, then the biller is not paid: the payment fails and both holds are released', async () => {
      const run = await settleEligible({ ledger: NO_FUNDS_FOR_PRN });
      expect(outline(run.outputs).slice(2)).toEqual(['Execute Hold', 'Execute RecordPaymentAttempt', ...RELEASE_BOTH]);
      expect(run.outputs[3]).toEqual({
        type: 'Execute',
        command: {
          type: 'RecordPaymentAttempt',
          outcome: { result: 'REFUSED', reason: 'the wallet balance cannot cover the PRN amount' },
          at: at(60),
        },
      });
      expect(run.outputs.slice(4, 6)).toEqual(releases(`fee:${REF}`, `prn:${REF}`));
      expect(run.payment).toMatchObject({ phase: 'FAILED', failureReason: 'BILLER_REFUSED' });
    });
  });

  describe('given a PAYING payment, when its collection’s settlement is delivered again', () => {
    it('then only the delivery that moved it to PAYING paid: this one waits a status poll (the timer pays after a crash)', async () => {
      const run = await given(eventsTo('PAYING')).when(collectionSettled('COMPLETED'), at(60));
      expect(outline(run.outputs)).toEqual(['Execute CreditCollection', 'Execute RecordCollectionSettled', 'RetryAt']);
      expect(run.outputs[2]).toEqual({ type: 'RetryAt', at: at(62) });
      expect(run.events).toEqual([]);
    });

    it('then after a failed attempt it waits for the recorded next attempt', async () => {
      const run = await given(eventsTo('PAYING_RETRIED')).when(collectionSettled('COMPLETED'), at(80));
      expect(run.outputs[2]).toEqual({ type: 'RetryAt', at: at(100) });
    });
  });

  describe('given the biller refuses the payment', () => {
    const refused = { refused: 'PRN_CANCELLED' };

    it('when it knows no payment made with the key, then the refusal is recorded and the holds released', async () => {
      const run = await settleEligible({ biller: { pay: [refused], ask: ['no payment'] } });
      expect(outline(run.outputs).slice(3)).toEqual([
        'Call PayBiller',
        'Call AskBiller',
        'Execute RecordPaymentAttempt',
        ...RELEASE_BOTH,
      ]);
      expect(run.outputs[4]).toEqual({ type: 'Call', call: { type: 'AskBiller', idempotencyKey: KEY } });
      expect(run.outputs[5]).toMatchObject({ command: { outcome: { result: 'REFUSED', reason: 'PRN_CANCELLED' } } });
      expect(run.payment).toMatchObject({ phase: 'FAILED', failureReason: 'BILLER_REFUSED' });
    });

    it('when it made a payment with the key after all (it checks the PRN before the key), then that payment is captured', async () => {
      const run = await settleEligible({ biller: { pay: [refused], ask: [PAID] } });
      expect(outline(run.outputs).slice(4)).toEqual(ASKS_AND_CAPTURES);
      expect(run.payment).toMatchObject({ phase: 'COMPLETED' });
    });

    it('when it cannot be asked, from a timer, then the run fails and the timer fires again', async () => {
      const run = await given(eventsTo('PAYING')).when(TIMER_DUE, at(100), {
        biller: { pay: [refused], ask: ['unreachable'] },
      });
      expect(outline(run.outputs)).toEqual(['Execute Hold', 'Call PayBiller', 'Call AskBiller', 'Fail']);
      expect(run.payment).toMatchObject({ phase: 'PAYING' });
    });

    it('when it cannot be asked, from the settlement, then the run ends with a note: the payment timer tries again', async () => {
      const run = await settleEligible({ biller: { pay: [refused], ask: ['unreachable'] } });
      expect(run.outputs.slice(4)).toEqual([
        { type: 'Call', call: { type: 'AskBiller', idempotencyKey: KEY } },
        { type: 'Done', note: 'PRN payment not completed now; its timer tries again' },
      ]);
      expect(run.payment).toMatchObject({ phase: 'PAYING' });
    });
  });

  describe('given the biller cannot be reached for the payment', () => {
    it('when attempts remain, then the failed attempt is recorded with the next time of the schedule, and the timer waits for it', async () => {
      const run = await given(eventsTo('PAYING_RETRIED')).when(TIMER_DUE, at(100), {
        biller: { pay: ['unreachable'] },
      });
      expect(outline(run.outputs)).toEqual([
        'Execute Hold',
        'Call PayBiller',
        'Execute RecordPaymentAttempt',
        'RetryAt',
      ]);
      expect(run.outputs.slice(2)).toEqual([
        {
          type: 'Execute',
          command: {
            type: 'RecordPaymentAttempt',
            outcome: {
              result: 'RETRYABLE_FAILURE',
              attempt: 2,
              reason: 'biller unavailable (503)',
              nextAttemptAt: at(160),
            },
            at: at(100),
          },
        },
        { type: 'RetryAt', at: at(160) },
      ]);
    });

    it.each(['no payment', 'unreachable'] as const)(
      'when the last attempt failed and, asked about the key, the biller answers %p, then the payment gives up and releases its holds',
      async (answer) => {
        const run = await given(eventsTo('PAYING_RETRIED')).when(TIMER_DUE, at(100), {
          biller: { pay: ['unreachable'], ask: [answer] },
          retry: SHORT_RETRY,
        });
        expect(outline(run.outputs)).toEqual([
          'Execute Hold',
          'Call PayBiller',
          'Call AskBiller',
          'Execute GiveUp',
          'Execute ReleaseHold',
          'Execute ReleaseHold',
          'Done',
        ]);
        expect(run.outputs[3]).toEqual({ type: 'Execute', command: { type: 'GiveUp', at: at(100) } });
        expect(run.payment).toMatchObject({ phase: 'FAILED', failureReason: 'RETRIES_EXHAUSTED' });
      },
    );

    it('when the last attempt failed but the biller made the payment, then it is captured', async () => {
      const run = await given(eventsTo('PAYING_RETRIED')).when(TIMER_DUE, at(100), {
        biller: { pay: ['unreachable'], ask: [PAID] },
        retry: SHORT_RETRY,
      });
      expect(outline(run.outputs).slice(2)).toEqual(ASKS_AND_CAPTURES);
      expect(run.payment).toMatchObject({ phase: 'COMPLETED' });
    });
  });
});
