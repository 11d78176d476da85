/**
 * The simulated MoMo customer: how they answer a prompt is decided by the test number's last four
 * digits, and an answer whose time has come is given even when the timer that was to give it is gone.
 */
import { randomUUID } from 'node:crypto';
import { describeOnAllSqlEngines } from '@paygate/testing';
import { openSandbox, type SandboxUnderTest } from '../sandbox-test-setup';
import { MomoSimulator } from './momo-simulator';
import { MomoStore } from './momo-store';

describeOnAllSqlEngines('the sandbox MoMo Collection product', 'sandbox_momo', (open) => {
  let sandbox: SandboxUnderTest;
  let store: MomoStore;
  let momo: MomoSimulator;
  beforeAll(async () => {
    sandbox = await openSandbox({}, await open());
    store = new MomoStore(sandbox.infrastructure);
    momo = new MomoSimulator(store, sandbox.background, sandbox.config);
  });
  afterAll(() => sandbox.close());

  async function prompt(simulator: MomoSimulator, partyId: string): Promise<string> {
    const referenceId = randomUUID();
    const accepted = await simulator.requestToPay({
      referenceId,
      amount: '81000',
      currency: 'UGX',
      externalId: `order-${referenceId}`,
      payer: { partyIdType: 'MSISDN', partyId },
      payerMessage: 'Order 1001',
      payeeNote: 'Kampala Books',
    });
    expect(accepted).toBe(true);
    return referenceId;
  }

  describe('the MoMo customer, by test number', () => {
    it.each([
      [
        '0002',
        'FAILED for want of funds',
        { status: 'FAILED', reason: 'NOT_ENOUGH_FUNDS', financialTransactionId: undefined },
      ],
      [
        '0003',
        'FAILED, the customer declining',
        { status: 'FAILED', reason: 'APPROVAL_REJECTED', financialTransactionId: undefined },
      ],
      [
        '0001',
        'SUCCESSFUL with a transaction id',
        { status: 'SUCCESSFUL', reason: undefined, financialTransactionId: expect.stringMatching(/^\d{10}$/) },
      ],
    ])('ending %s answers %s', async (ending, _answer, outcome) => {
      const request = await momo.status(await prompt(momo, `25677200${ending}`));
      expect(request).toMatchObject(outcome);
    });

    it('ending 0004 never answers: the request stays PENDING', async () => {
      const referenceId = await prompt(momo, '256772000004');
      expect(await momo.status(referenceId)).toMatchObject({ status: 'PENDING', resolvesAt: undefined });
    });

    it('answers on the first status read when the timer was lost in a restart', async () => {
      const before = sandbox.newBackground();
      const referenceId = await prompt(new MomoSimulator(store, before, sandbox.config), '256772000001');
      await before.onModuleDestroy();
      expect((await store.find(referenceId))?.status).toBe('PENDING');
      const restarted = new MomoSimulator(store, sandbox.newBackground(), sandbox.config);
      expect((await restarted.status(referenceId))?.status).toBe('SUCCESSFUL');
    });

    it('refuses a reference id used before, so a retried prompt is never a second one', async () => {
      const referenceId = await prompt(momo, '256772000004');
      const again = await momo.requestToPay({
        referenceId,
        amount: '500',
        currency: 'UGX',
        externalId: 'another-order',
        payer: { partyIdType: 'MSISDN', partyId: '256772000001' },
        payerMessage: '',
        payeeNote: '',
      });
      expect(again).toBe(false);
      expect(await momo.status(referenceId)).toMatchObject({ amount: '81000', status: 'PENDING' });
    });
  });

  describe('MoMo access tokens', () => {
    it('accepts a token it issued and no other', async () => {
      const token = await momo.issueToken('collection');
      expect(await momo.tokenValid(token, 'collection')).toBe(true);
      expect(await momo.tokenValid(`${token}x`, 'collection')).toBe(false);
    });

    it("accepts a product's token for that product only, in this process and another", async () => {
      const token = await momo.issueToken('disbursement');
      expect(await momo.tokenValid(token, 'disbursement')).toBe(true);
      expect(await momo.tokenValid(token, 'collection')).toBe(false);
      const another = new MomoSimulator(new MomoStore(sandbox.infrastructure), sandbox.background, sandbox.config);
      expect(await another.tokenValid(token, 'disbursement')).toBe(true);
      expect(await another.tokenValid(token, 'collection')).toBe(false);
    });
  });
});
