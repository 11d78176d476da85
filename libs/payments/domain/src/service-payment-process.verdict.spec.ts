/**
 * The service payment process (setup in service-payment-process-test-setup.ts). This file: the
 * PRN verdict: when the biller is asked about the PRN, what its answer asks of the wallet, and
 * when it is asked again.
 */
import { SERVICE_PAYMENT_EVENT_TYPES as EVENTS } from './events';
import { merchantBearsFee, serviceNameOf } from './service-payment-process';
import { at, deferValidation, eventsOf, eventsTo, open, PRN, prnDetails, REF, WALLET } from './payments-test-setup';
import {
  given,
  NO_FUNDS_FOR_FEE,
  outline,
  PAID,
  TIMER_DUE,
  verdictRequested,
} from './service-payment-process-test-setup';

const FEE_HOLD = { type: 'Hold', wallet: WALLET, holdId: `fee:${REF}`, amount: 1215, at: at(5) };
const verdict = (feeHold: string, verdict: object = { eligible: true }) => ({
  type: 'Execute',
  command: { type: 'RecordEligibility', verdict, feeHold, at: at(5) },
});

describe('service payment process: the PRN verdict', () => {
  describe('given no payment yet, when collections asks for the verdict', () => {
    it('then the biller is asked about the PRN, the payment opened, the fee the merchant bears held, and the PRN confirmed', async () => {
      const run = await given([]).when(verdictRequested(), at(5), {
        biller: { lookup: [prnDetails()], serviceName: ' URA - Domestic Tax ' },
      });
      expect(outline(run.outputs)).toEqual([
        'Call LookUpPrn',
        'Execute Open',
        'Execute Hold',
        'Execute RecordEligibility',
        'Done',
      ]);
      expect(run.outputs[0]).toEqual({ type: 'Call', call: { type: 'LookUpPrn', prn: PRN } });
      expect(run.outputs[1]).toMatchObject({
        command: { type: 'Open', prn: PRN, serviceName: 'URA - Domestic Tax', at: at(5) },
      });
      expect(run.outputs.slice(2, 4)).toEqual([{ type: 'Execute', command: FEE_HOLD }, verdict('HELD')]);
      expect(run.payment).toMatchObject({
        phase: 'ELIGIBLE',
        feeHoldId: `fee:${REF}`,
        opened: { serviceName: 'URA - Domestic Tax' },
      });
    });

    it('then a payment whose biller names no service carries the configured biller’s name', async () => {
      const run = await given([]).when(verdictRequested(), at(5), {
        biller: { lookup: [prnDetails()], serviceName: '  ' },
      });
      expect(run.payment).toMatchObject({ opened: { serviceName: 'Configured biller' } });
    });

    it.each([undefined, '', 'PRN-1', '1'.repeat(33)])(
      'with the PRN %p, then nothing is asked or opened: the gateway accepts only 1 to 32 digits',
      async (prn) => {
        const run = await given([]).when(verdictRequested({ prn }), at(5));
        expect(run.outputs).toEqual([
          { type: 'Done', note: 'collect-for-payment collection without a valid PRN: no service payment opened' },
        ]);
        expect(run.events).toEqual([]);
      },
    );
  });

  it('given a payment opened but never asked about (a crash came between), when the verdict is asked for again, then the biller is asked', async () => {
    const run = await given(eventsTo('OPENED')).when(verdictRequested(), at(5), { biller: { lookup: [prnDetails()] } });
    expect(outline(run.outputs)).toEqual(['Call LookUpPrn', 'Execute Hold', 'Execute RecordEligibility', 'Done']);
    expect(run.events.map((event) => event.type)).toEqual([EVENTS.prnConfirmed]);
  });

  describe('given the verdict was asked for before, when collections asks again (a redelivery)', () => {
    it.each(['ELIGIBLE', 'REJECTED', 'PAYING'] as const)(
      'with the payment %s, then nothing is asked',
      async (situation) => {
        const run = await given(eventsTo(situation)).when(verdictRequested(), at(5));
        expect({ outputs: run.outputs, events: run.events }).toEqual({ outputs: [{ type: 'Done' }], events: [] });
      },
    );

    it('with the lookup deferred, then nothing is asked: the timer follows it up', async () => {
      const run = await given(eventsOf(open(), deferValidation())).when(verdictRequested(), at(6));
      expect(run.outputs).toEqual([{ type: 'Done' }]);
    });
  });

  describe('given the payment opened, when the biller answers the lookup', () => {
    it.each([
      ['the customer pays the fee', { chargeCustomer: true }],
      ['there is no fee', { fee: 0, totalCredit: 81000 }],
    ])('and the PRN is eligible and %s, then nothing is held', async (_case, overrides) => {
      const run = await given(eventsOf(open(overrides))).when(verdictRequested(overrides), at(5), {
        biller: { lookup: [prnDetails()] },
      });
      expect(run.outputs).toEqual([
        { type: 'Call', call: { type: 'LookUpPrn', prn: PRN } },
        verdict('NOT_NEEDED'),
        { type: 'Done' },
      ]);
      expect(run.payment).toMatchObject({ phase: 'ELIGIBLE' });
    });

    it.each([
      ['already paid', prnDetails({ status: 'PAID' }), 'PRN_ALREADY_PAID'],
      ['unknown to the biller', null, 'PRN_NOT_FOUND'],
    ])(
      'and the PRN is %s, then nothing is held, the PRN is rejected, and the fee hold released (none was placed)',
      async (_case, details, reasonCode) => {
        const run = await given(eventsTo('OPENED')).when(verdictRequested(), at(5), { biller: { lookup: [details] } });
        expect(outline(run.outputs)).toEqual([
          'Call LookUpPrn',
          'Execute RecordEligibility',
          'Execute ReleaseHold',
          'Done',
        ]);
        expect(run.outputs[1]).toMatchObject(verdict('NOT_NEEDED', { eligible: false, reasonCode }));
        expect(run.outputs[2]).toEqual({
          type: 'Execute',
          command: { type: 'ReleaseHold', wallet: WALLET, holdId: `fee:${REF}`, at: at(5) },
        });
        expect(run.payment).toMatchObject({ phase: 'REJECTED', rejection: { reasonCode } });
      },
    );

    it('and the wallet cannot cover the fee the merchant bears, then the verdict records the refused hold: the PRN is rejected', async () => {
      const run = await given(eventsTo('OPENED')).when(verdictRequested(), at(5), {
        biller: { lookup: [prnDetails()] },
        ledger: NO_FUNDS_FOR_FEE,
      });
      expect(outline(run.outputs)).toEqual([
        'Call LookUpPrn',
        'Execute Hold',
        'Execute RecordEligibility',
        'Execute ReleaseHold',
        'Done',
      ]);
      expect(run.outputs[2]).toEqual(verdict('REFUSED'));
      expect(run.payment).toMatchObject({ phase: 'REJECTED', rejection: { reasonCode: 'FEE_NOT_COVERED' } });
    });

    it('and the ledger refuses the fee hold for another reason, then the run fails for its starter to retry, recording nothing', async () => {
      const run = await given(eventsTo('OPENED')).when(verdictRequested(), at(5), {
        biller: { lookup: [prnDetails()] },
        ledger: { FEE: 'duplicate_reference' },
      });
      expect(outline(run.outputs)).toEqual(['Call LookUpPrn', 'Execute Hold', 'Fail']);
      expect(run.events).toEqual([]);
    });

    it('and the collection completed before the verdict, then the eligible PRN is paid at once', async () => {
      const run = await given(eventsTo('OPENED_COLLECTED')).when(verdictRequested(), at(5), {
        biller: { lookup: [prnDetails()], pay: [PAID] },
      });
      expect(outline(run.outputs)).toEqual([
        'Call LookUpPrn',
        'Execute Hold',
        'Execute RecordEligibility',
        'Execute Hold',
        'Call PayBiller',
        'Execute CaptureHold',
        'Execute RecordPaymentAttempt',
        'Done',
      ]);
      expect(run.payment).toMatchObject({ phase: 'COMPLETED', billerPaymentId: PAID.billerPaymentId });
    });
  });

  describe('given the biller could not be reached for the lookup', () => {
    const note = 'the biller could not be reached to validate a PRN; asking again later';

    it('when it is the first time, then the payment is opened with the configured name and the lookup deferred to the first retry time', async () => {
      const run = await given([]).when(verdictRequested(), at(5), { biller: { lookup: ['unreachable'] } });
      expect(outline(run.outputs)).toEqual(['Call LookUpPrn', 'Execute Open', 'Execute DeferValidation', 'RetryAt']);
      expect(run.outputs[1]).toMatchObject({ command: { serviceName: 'Configured biller' } });
      expect(run.outputs[2]).toEqual({
        type: 'Execute',
        command: {
          type: 'DeferValidation',
          attempt: 1,
          reason: 'biller unavailable (503)',
          nextAttemptAt: at(35),
          at: at(5),
        },
      });
      expect(run.outputs[3]).toEqual({ type: 'RetryAt', at: at(35), note });
    });

    it('when it was deferred before, then its timer asks again and the next deferral is later on the schedule', async () => {
      const run = await given(eventsOf(open(), deferValidation(1, 5))).when(TIMER_DUE, at(35), {
        biller: { lookup: ['unreachable'] },
      });
      expect(run.outputs.slice(1)).toEqual([
        {
          type: 'Execute',
          command: expect.objectContaining({ type: 'DeferValidation', attempt: 2, nextAttemptAt: at(95) }),
        },
        { type: 'RetryAt', at: at(95), note },
      ]);
    });

    it('when the retry schedule is spent, then it keeps asking at the longest delay (the collection deadline bounds the wait)', async () => {
      const retry = { maxAttempts: 2, baseDelayMs: 1_000, maxDelayMs: 60_000 };
      const run = await given(eventsOf(open(), deferValidation(2, 5))).when(TIMER_DUE, at(40), {
        biller: { lookup: ['unreachable'] },
        retry,
      });
      expect(run.outputs[1]).toMatchObject({
        command: { type: 'DeferValidation', attempt: 3, nextAttemptAt: at(100) },
      });
    });

    it('when its timer finds the biller again, then the verdict is recorded', async () => {
      const run = await given(eventsOf(open(), deferValidation(1, 5))).when(TIMER_DUE, at(35), {
        biller: { lookup: [prnDetails({ status: 'EXPIRED' })] },
      });
      expect(run.payment).toMatchObject({ phase: 'REJECTED', rejection: { reasonCode: 'PRN_EXPIRED' } });
    });
  });

  it("the payment carries the biller's name for the service, trimmed, else the configured one", () => {
    expect(serviceNameOf(' URA - Domestic Tax ', 'Configured biller')).toBe('URA - Domestic Tax');
    expect(serviceNameOf('  ', 'Configured biller')).toBe('Configured biller');
    expect(serviceNameOf(undefined, 'Configured biller')).toBe('Configured biller');
  });

  it.each([
    [false, 1215, true],
    [true, 1215, false],
    [false, 0, false],
    [true, 0, false],
  ])('charge_customer=%p with a fee of %p: the merchant bears it: %p', (chargeCustomer, fee, bears) => {
    expect(merchantBearsFee({ chargeCustomer, fee })).toBe(bears);
  });
});
