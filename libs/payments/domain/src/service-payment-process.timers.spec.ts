/**
 * The service payment process (setup in service-payment-process-test-setup.ts). This file: a due
 * payment timer: it asks the biller about the PRN again, pays again with the same key, waits for
 * an attempt not yet due, or finishes, and its verdict for the timer worker (Done, or RetryAt).
 */
import { paymentIdempotencyKey } from './references';
import { at, deferValidation, eventsOf, eventsTo, open, prnDetails, REF, WALLET } from './payments-test-setup';
import { given, holdPrnAmount, outline, PAID, TIMER_DUE } from './service-payment-process-test-setup';

describe('service payment process: a due payment timer', () => {
  it('given no payment, then it is done', async () => {
    expect((await given([]).when(TIMER_DUE, at(100))).outputs).toEqual([{ type: 'Done' }]);
  });

  it('given a deferred lookup whose time has come, then the biller is asked about the PRN again and the verdict recorded', async () => {
    const run = await given(eventsOf(open(), deferValidation(1, 5))).when(TIMER_DUE, at(35), {
      biller: { lookup: [prnDetails()] },
    });
    expect(outline(run.outputs)).toEqual(['Call LookUpPrn', 'Execute Hold', 'Execute RecordEligibility', 'Done']);
    expect(run.payment).toMatchObject({ phase: 'ELIGIBLE' });
  });

  it('given a deferred lookup not yet due (the timer fired early), then it waits for it without asking', async () => {
    const run = await given(eventsOf(open(), deferValidation(1, 5))).when(TIMER_DUE, at(20));
    expect(run.outputs).toEqual([{ type: 'RetryAt', at: at(35) }]);
  });

  it('given a PAYING payment, then the PRN amount is held and the biller paid again with the same key: the biller makes one payment', async () => {
    const run = await given(eventsTo('PAYING')).when(TIMER_DUE, at(100), { biller: { pay: [PAID] } });
    expect(run.outputs.slice(0, 2)).toEqual([
      holdPrnAmount(at(100)),
      {
        type: 'Call',
        call: { type: 'PayBiller', request: expect.objectContaining({ idempotencyKey: paymentIdempotencyKey(REF) }) },
      },
    ]);
    expect(outline(run.outputs).slice(2)).toEqual(['Execute CaptureHold', 'Execute RecordPaymentAttempt', 'Done']);
    expect(run.payment).toMatchObject({ phase: 'COMPLETED' });
  });

  it('given a failed attempt whose next attempt is not yet due (the timer fired early), then it waits for it without paying', async () => {
    const run = await given(eventsTo('PAYING_RETRIED')).when(TIMER_DUE, at(71));
    expect(run.outputs).toEqual([{ type: 'RetryAt', at: at(100) }]);
  });

  it('given a payment that failed, then its fee and PRN holds are released (again: releasing changes nothing twice)', async () => {
    const run = await given(eventsTo('FAILED')).when(TIMER_DUE, at(100));
    expect(run.outputs).toEqual([
      { type: 'Execute', command: { type: 'ReleaseHold', wallet: WALLET, holdId: `fee:${REF}`, at: at(100) } },
      { type: 'Execute', command: { type: 'ReleaseHold', wallet: WALLET, holdId: `prn:${REF}`, at: at(100) } },
      { type: 'Done' },
    ]);
  });

  it.each(['COMPLETED', 'ELIGIBLE'] as const)('given a payment %s, then there is nothing to do', async (situation) => {
    const run = await given(eventsTo(situation)).when(TIMER_DUE, at(100));
    expect({ outputs: run.outputs, events: run.events }).toEqual({ outputs: [{ type: 'Done' }], events: [] });
  });
});
