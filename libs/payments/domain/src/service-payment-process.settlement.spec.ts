/**
 * The service payment process (setup in service-payment-process-test-setup.ts). This file: a
 * collection settles: what is credited to the wallet, what is recorded on the payment, and what a
 * payment that ended without paying gives back.
 */
import { SERVICE_PAYMENT_EVENT_TYPES as EVENTS } from './events';
import { holdsToRelease, isFinal } from './service-payment-process';
import type { ServicePayment, ServicePaymentCommand } from './service-payment';
import {
  ALREADY_PAID,
  apply,
  at,
  commandsTo,
  eventsTo,
  FINAL_SITUATIONS,
  open,
  recordEligibility,
  REF,
  settled,
  SITUATIONS,
  stateIn,
  WALLET,
} from './payments-test-setup';
import { collectionSettled, given, outline } from './service-payment-process-test-setup';

const credit = (totalCredit: number, fee: number) => ({
  type: 'Execute',
  command: { type: 'CreditCollection', wallet: WALLET, internalReference: REF, totalCredit, fee, at: at(60) },
});
const release = (holdId: string) => ({ type: 'ReleaseHold', wallet: WALLET, holdId, at: at(60) });

describe('service payment process: a collection settles', () => {
  it('given no payment, when a completed collection without a PRN settles, then the wallet is credited its total credit and fee, and that is all', async () => {
    const run = await given([]).when(collectionSettled('COMPLETED', { prn: undefined }), at(60));
    expect(run.outputs).toEqual([credit(79785, 1215), { type: 'Done' }]);
    expect(run.payment).toBeNull();
  });

  it('given no payment, when a completed collection leaves nothing to credit, then nothing is credited', async () => {
    const run = await given([]).when(
      collectionSettled('COMPLETED', { prn: undefined, totalCredit: 0, fee: 500 }),
      at(60),
    );
    expect(run.outputs).toEqual([{ type: 'Done' }]);
  });

  it('given no payment, when a collect-for-payment collection settles, then the wallet is credited and the missing payment noted', async () => {
    const run = await given([]).when(collectionSettled('COMPLETED'), at(60));
    expect(run.outputs).toEqual([
      credit(79785, 1215),
      { type: 'Done', note: 'a collect-for-payment collection settled without a service payment' },
    ]);
  });

  it('given a payment awaiting its verdict, when the collection completes, then the wallet is credited and the settlement recorded: it pays once eligible', async () => {
    const run = await given(eventsTo('OPENED')).when(collectionSettled('COMPLETED'), at(60));
    expect(outline(run.outputs)).toEqual(['Execute CreditCollection', 'Execute RecordCollectionSettled', 'Done']);
    expect(run.outputs[1]).toEqual({
      type: 'Execute',
      command: {
        type: 'RecordCollectionSettled',
        collectionStatus: 'COMPLETED',
        collectionStatusMessage: 'Transaction completed successfully',
        at: at(60),
      },
    });
    expect(run.events.map((event) => event.type)).toEqual([EVENTS.collectionSettled]);
    expect(run.payment).toMatchObject({ phase: 'OPENED', collectionStatus: 'COMPLETED' });
  });

  it.each(['FAILED', 'CANCELLED'] as const)(
    'given an eligible payment, when its collection settles %s, then nothing is credited, the payment fails and its fee hold is released',
    async (status) => {
      const run = await given(eventsTo('ELIGIBLE')).when(collectionSettled(status), at(60));
      expect(run.outputs).toEqual([
        {
          type: 'Execute',
          command: {
            type: 'RecordCollectionSettled',
            collectionStatus: status,
            collectionStatusMessage: 'Transaction failed',
            at: at(60),
          },
        },
        { type: 'Execute', command: release(`fee:${REF}`) },
        { type: 'Done' },
      ]);
      expect(run.payment).toMatchObject({ phase: 'FAILED', failureReason: 'COLLECTION_NOT_COMPLETED' });
    },
  );

  it('given an eligible payment, when its collection is still PENDING, then it has not settled and nothing happens', async () => {
    const run = await given(eventsTo('ELIGIBLE')).when(collectionSettled('PENDING'), at(60));
    expect({ outputs: run.outputs, events: run.events }).toEqual({ outputs: [{ type: 'Done' }], events: [] });
  });
});

describe('what a payment that ended without paying gives back', () => {
  const payment = (...commands: ServicePaymentCommand[]): ServicePayment => {
    const state = commands.reduce(apply, null);
    if (!state) throw new Error('no payment');
    return state;
  };

  it('when the collection did not complete, only the fee hold: no PRN hold was placed', () => {
    expect(holdsToRelease(payment(...commandsTo('ELIGIBLE'), settled('FAILED')), { now: at(60) })).toEqual([
      release(`fee:${REF}`),
    ]);
  });

  it('when the PRN was rejected, the fee hold (releasing one never placed changes nothing)', () => {
    expect(holdsToRelease(stateIn('REJECTED'), { now: at(60) })).toEqual([release(`fee:${REF}`)]);
  });

  it('when the payment failed after the collection completed, both holds', () => {
    expect(holdsToRelease(stateIn('FAILED'), { now: at(60) })).toEqual([release(`fee:${REF}`), release(`prn:${REF}`)]);
  });

  it('when the customer paid the fee, only the PRN hold', () => {
    const customerPays = payment(
      open({ chargeCustomer: true }),
      recordEligibility({ eligible: true }, 'NOT_NEEDED'),
      settled('COMPLETED'),
      {
        type: 'GiveUp',
        at: at(99),
      },
    );
    expect(holdsToRelease(customerPays, { now: at(60) })).toEqual([release(`prn:${REF}`)]);
  });

  it('when the payment completed, nothing: the PRN hold was captured', () => {
    expect(holdsToRelease(stateIn('COMPLETED'), { now: at(60) })).toEqual([]);
  });

  it('when the PRN was rejected and the customer paid the fee, nothing', () => {
    expect(
      holdsToRelease(payment(open({ chargeCustomer: true }), recordEligibility(ALREADY_PAID, 'NOT_NEEDED')), {
        now: at(60),
      }),
    ).toEqual([]);
  });

  it('the final phases are the decider’s: REJECTED, COMPLETED, FAILED', () => {
    expect(SITUATIONS.filter((situation) => isFinal(stateIn(situation)))).toEqual(FINAL_SITUATIONS);
    expect(isFinal(null)).toBe(false);
  });
});
