/**
 * The simulated Disbursement product: what becomes of a payout by the payee's number and of a refund by the refunded
 * collection's payer number, whether each calls back, and that a repeated reference id is counted, never redone. Its
 * timers run when the spec says (SteppedBackground), so no outcome is waited for.
 */
import { randomUUID } from 'node:crypto';
import { describeOnAllSqlEngines } from '@paygate/testing';
import type { Background } from '../background';
import { ProviderApiError } from '../provider-api-error';
import { openSandbox, SteppedBackground, type SandboxUnderTest } from '../sandbox-test-setup';
import { DisbursementSimulator } from './disbursement-simulator';
import { DisbursementStore } from './disbursement-store';
import { MomoSimulator } from './momo-simulator';
import { MomoStore } from './momo-store';

const LATE_COMPLETION_MS = 30_000;
const REVERSAL_DELAY_MS = 10_000;

describeOnAllSqlEngines('the sandbox Disbursement product', 'sandbox_disbursement', (open) => {
  let sandbox: SandboxUnderTest;
  let store: DisbursementStore;
  let momo: MomoSimulator;
  let background: SteppedBackground;
  let disbursement: DisbursementSimulator;

  beforeAll(async () => {
    sandbox = await openSandbox(
      { SANDBOX_LATE_COMPLETION_MS: String(LATE_COMPLETION_MS), SANDBOX_REVERSAL_DELAY_MS: String(REVERSAL_DELAY_MS) },
      await open(),
    );
    store = new DisbursementStore(sandbox.infrastructure);
    momo = new MomoSimulator(new MomoStore(sandbox.infrastructure), sandbox.background, sandbox.config);
  });
  afterAll(() => sandbox.close());
  beforeEach(() => {
    background = new SteppedBackground();
    disbursement = simulator();
  });

  const simulator = (config = sandbox.config) =>
    new DisbursementSimulator(store, momo, background as unknown as Background, config);

  const transfer = (partyId: string, referenceId = randomUUID()) =>
    disbursement.transfer({
      referenceId,
      amount: '50000',
      currency: 'UGX',
      externalId: `payout-${referenceId}`,
      payee: { partyIdType: 'MSISDN', partyId },
      payerMessage: 'Weekly settlement',
      payeeNote: 'Kampala Books',
      callbackUrl: 'http://127.0.0.1:9/payouts',
    });

  /** A SUCCESSFUL request to pay of UGX 81,000 from `partyId` (SANDBOX_LATENCY_MS is 0: settled on the first read). */
  async function collection(partyId: string): Promise<string> {
    const referenceId = randomUUID();
    await momo.requestToPay({
      referenceId,
      amount: '81000',
      currency: 'UGX',
      externalId: `order-${referenceId}`,
      payer: { partyIdType: 'MSISDN', partyId },
      payerMessage: 'Order',
      payeeNote: 'Kampala Books',
    });
    await momo.status(referenceId);
    return referenceId;
  }

  const refund = (referenceIdToRefund: string, amount: string, referenceId = randomUUID(), currency = 'UGX') =>
    disbursement.refund({
      referenceId,
      referenceIdToRefund,
      amount,
      currency,
      externalId: `refund-${referenceId}`,
      payerMessage: 'Refund',
      payeeNote: 'Returned goods',
      callbackUrl: 'http://127.0.0.1:9/refunds',
    });

  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => (error instanceof ProviderApiError ? { status: error.status, ...error.body } : error),
    );

  describe('payouts, by the payee number', () => {
    it.each([
      ['0001', { status: 'SUCCESSFUL', financialTransactionId: expect.stringMatching(/^\d{10}$/) }, true],
      ['0009 (any other ending)', { status: 'SUCCESSFUL' }, true],
      ['0002', { status: 'FAILED', reason: 'INTERNAL_PROCESSING_ERROR' }, true],
      ['0003', { status: 'FAILED', reason: 'PAYEE_NOT_ALLOWED_TO_RECEIVE' }, true],
      ['0005', { status: 'SUCCESSFUL' }, false],
    ])('ending %s: answered at once, then %j, called back: %s', async (ending, outcome, callsBack) => {
      const referenceId = randomUUID();
      expect(await transfer(`25677200${ending.slice(0, 4)}`, referenceId)).toEqual({ created: true, answered: true });
      await background.runAll();
      expect(await disbursement.transferStatus(referenceId)).toMatchObject(outcome);
      expect(background.callbacks).toEqual(
        callsBack
          ? [
              {
                method: 'PUT',
                url: 'http://127.0.0.1:9/payouts',
                body: expect.objectContaining({ externalId: `payout-${referenceId}`, ...outcome }),
              },
            ]
          : [],
      );
    });

    it('ending 0004: recorded but never answered, PENDING until it completes SUCCESSFUL later, without a callback', async () => {
      const referenceId = randomUUID();
      expect(await transfer('256772000004', referenceId)).toEqual({ created: true, answered: false });
      expect(await disbursement.transferStatus(referenceId)).toMatchObject({ status: 'PENDING' });
      expect(background.pendingDelays).toEqual([LATE_COMPLETION_MS]);
      await background.runAll();
      expect(await disbursement.transferStatus(referenceId)).toMatchObject({ status: 'SUCCESSFUL' });
      expect(background.callbacks).toEqual([]);
    });

    it('ending 0006: completes with a callback, then is REVERSED with another', async () => {
      const referenceId = randomUUID();
      await transfer('256772000006', referenceId);
      expect(background.pendingDelays).toEqual([0, REVERSAL_DELAY_MS]);
      await background.runAll();
      expect(await disbursement.transferStatus(referenceId)).toMatchObject({
        status: 'REVERSED',
        reason: 'TRANSACTION_REVERSED',
      });
      expect(background.callbacks.map((callback) => callback.body.status)).toEqual(['SUCCESSFUL', 'REVERSED']);
    });

    it('gives an outcome whose time has passed on the first status read, the timers lost in a restart', async () => {
      const due = { ...sandbox.config, lateCompletionMs: 0, reversalDelayMs: 0 };
      const [late, reversed] = [randomUUID(), randomUUID()];
      await transfer('256772000004', late);
      await transfer('256772000006', reversed);
      disbursement = simulator(due);
      const [lateNow, reversedNow] = [randomUUID(), randomUUID()];
      await transfer('256772000004', lateNow);
      await transfer('256772000006', reversedNow);
      // None of the timers ever runs: a simulator started afresh reads the outcomes that are due, and only those.
      const restarted = new DisbursementSimulator(store, momo, new SteppedBackground() as unknown as Background, due);
      expect(await restarted.transferStatus(late)).toMatchObject({ status: 'PENDING' });
      expect(await restarted.transferStatus(reversed)).toMatchObject({ status: 'SUCCESSFUL' });
      expect(await restarted.transferStatus(lateNow)).toMatchObject({ status: 'SUCCESSFUL' });
      expect(await restarted.transferStatus(reversedNow)).toMatchObject({ status: 'REVERSED' });
    });

    it('counts a repeated reference id and changes nothing for it', async () => {
      const referenceId = randomUUID();
      await transfer('256772000001', referenceId);
      expect(
        await disbursement.transfer({
          referenceId,
          amount: '999',
          currency: 'UGX',
          externalId: 'another-payout',
          payee: { partyIdType: 'MSISDN', partyId: '256772000002' },
          payerMessage: '',
          payeeNote: '',
        }),
      ).toEqual({ created: false, answered: true });
      expect(background.pendingDelays).toHaveLength(1);
      expect(await store.findTransfer(referenceId)).toMatchObject({
        amount: '50000',
        externalId: `payout-${referenceId}`,
        requestsReceived: 2,
      });
    });

    it('names each account holder the same way every time, and says a number ending 0003 cannot receive', () => {
      expect(disbursement.accountHolder('256772000001')).toEqual({
        active: true,
        givenName: 'Sarah',
        familyName: 'Nakato',
      });
      expect(disbursement.accountHolder('256772000001')).toEqual(disbursement.accountHolder('256772000001'));
      expect(disbursement.accountHolder('256772000026')).toMatchObject({ givenName: 'Moses', familyName: 'Namubiru' });
      expect(disbursement.accountHolder('256772000003')).toMatchObject({ active: false });
    });
  });

  describe('refunds, by the number the collection was paid from', () => {
    it.each([
      ['0001', { status: 'SUCCESSFUL', financialTransactionId: expect.stringMatching(/^\d{10}$/) }],
      ['0007', { status: 'FAILED', reason: 'NOT_ALLOWED' }],
    ])('a collection paid from a number ending %s: answered at once, then %j, called back', async (ending, outcome) => {
      const referenceId = randomUUID();
      expect(await refund(await collection(`25677200${ending}`), '81000', referenceId)).toEqual({
        created: true,
        answered: true,
      });
      await background.runAll();
      expect(await disbursement.refundStatus(referenceId)).toMatchObject(outcome);
      expect(background.callbacks).toEqual([
        {
          method: 'PUT',
          url: 'http://127.0.0.1:9/refunds',
          body: expect.objectContaining({ externalId: `refund-${referenceId}`, ...outcome }),
        },
      ]);
    });

    it('ending 0008: recorded but never answered, PENDING until it completes later, without a callback', async () => {
      const referenceId = randomUUID();
      expect(await refund(await collection('256772000008'), '1000', referenceId)).toEqual({
        created: true,
        answered: false,
      });
      expect(await disbursement.refundStatus(referenceId)).toMatchObject({ status: 'PENDING' });
      expect(background.pendingDelays).toEqual([LATE_COMPLETION_MS]);
      await background.runAll();
      expect(await disbursement.refundStatus(referenceId)).toMatchObject({ status: 'SUCCESSFUL' });
      expect(background.callbacks).toEqual([]);
    });

    it('refunds in parts up to the collected amount, refuses more and records nothing for the refusal', async () => {
      const refunded = await collection('256772000001');
      await refund(refunded, '30000');
      await refund(refunded, '0.50');
      const referenceId = randomUUID();
      expect(await refusal(refund(refunded, '51000', referenceId))).toEqual({
        status: 400,
        code: 'INVALID_AMOUNT',
        message: 'the refund is more than is left of the request to pay: 50999.50 UGX',
      });
      expect(await store.findRefund(referenceId)).toBeUndefined();
      expect(await refund(refunded, '50999.50')).toMatchObject({ created: true });
    });

    it('counts what a failed refund took as left', async () => {
      const refunded = await collection('256772000007');
      await refund(refunded, '81000');
      await background.runAll();
      expect(await refund(refunded, '81000')).toMatchObject({ created: true });
    });

    it('refuses a refund of no collection, of one not SUCCESSFUL, or in another currency', async () => {
      expect(await refusal(refund(randomUUID(), '100'))).toMatchObject({ status: 404, code: 'RESOURCE_NOT_FOUND' });
      expect(await refusal(refund(await collection('256772000004'), '100'))).toMatchObject({
        status: 400,
        code: 'NOT_ALLOWED',
      });
      expect(await refusal(refund(await collection('256772000001'), '100', randomUUID(), 'KES'))).toMatchObject({
        status: 400,
        code: 'INVALID_CURRENCY',
      });
    });

    it('counts a repeated reference id without checking or recording it again', async () => {
      const refunded = await collection('256772000001');
      const referenceId = randomUUID();
      await refund(refunded, '81000', referenceId);
      expect(await refund(refunded, '81000', referenceId)).toEqual({ created: false, answered: true });
      expect(await store.findRefund(referenceId)).toMatchObject({ amount: '81000', requestsReceived: 2 });
      expect(background.pendingDelays).toHaveLength(1);
    });

    it('never lets concurrent refunds together take more than the collection', async () => {
      const refunded = await collection('256772000001');
      const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => refund(refunded, '24300')));
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(3);
      expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toHaveLength(2);
    });
  });
});
