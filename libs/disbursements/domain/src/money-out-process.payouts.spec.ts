import {
  APPROVAL_MS,
  given,
  givenRequest,
  payoutRequest,
  POLL_MS,
  REVERSAL_WATCH_MS,
  status,
  T0,
  when,
} from './disbursements-test-setup';

/** Given a payout's history, when something happens (and the provider answers so), then what the run does. */
const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();

const awaitingApproval = () =>
  givenRequest({
    type: 'Request',
    request: payoutRequest({ requestedAmount: 6_000_000, amount: 6_000_000 }),
    approvalThreshold: 5_000_000,
    createdBy: 'usr_a',
  });

describe('a payout waiting for approval', () => {
  it('is not sent; its run waits until the approval time is up', async () => {
    const run = await when(awaitingApproval(), { type: 'Accepted' });
    expect(run.calls).toEqual([]);
    expect(run.end).toMatchObject({ type: 'RetryAt', at: at(APPROVAL_MS) });
    expect(run.moneyOut.status).toBe('PENDING_APPROVAL');
  });

  it('approved: sent at once, as any other', async () => {
    const approved = givenRequest(
      {
        type: 'Request',
        request: payoutRequest({ requestedAmount: 6_000_000, amount: 6_000_000 }),
        approvalThreshold: 5_000_000,
      },
      { type: 'Approve', approverId: 'usr_b', at: at(60_000) },
    );
    const run = await when(approved, { type: 'Accepted' }, { Send: [{ type: 'SendAccepted' }] }, at(60_000));
    expect(run.calls).toEqual(['Send']);
    expect(run.moneyOut).toMatchObject({ status: 'PENDING', pendingReason: 'provider_processing' });
  });

  it('unapproved when the time is up: CANCELLED, its hold released and no longer counted in its day; nothing sent', async () => {
    const run = await when(awaitingApproval(), { type: 'TimerDue' }, {}, at(APPROVAL_MS));
    expect(run.calls).toEqual([]);
    expect(run.moneyOut).toMatchObject({ status: 'CANCELLED', holdSettled: true });
    expect(run.settlements).toEqual([{ type: 'SettleWallet', outcome: 'NOT_PAID' }, { type: 'UncountPayout' }]);
    expect(run.end.type).toBe('Done');
  });
});

describe('a completed payout its provider may still reverse', () => {
  const sent = () => given(payoutRequest(), { type: 'RecordSent', at: T0 });
  const completed = () =>
    given(
      payoutRequest(),
      { type: 'RecordSent', at: T0 },
      { type: 'RecordCompleted', providerTransactionId: 'mtn-1', at: T0 },
      { type: 'RecordHoldSettled', at: T0 },
    );

  it('once completed it is asked again at the next poll, within the watch time', async () => {
    const run = await when(
      sent(),
      { type: 'TimerDue' },
      { Status: [status({ status: 'SUCCESSFUL', providerTransactionId: 'mtn-1' })] },
    );
    expect(run.settlements).toEqual([{ type: 'SettleWallet', outcome: 'PAID' }]);
    expect(run.end).toMatchObject({ type: 'RetryAt', at: at(POLL_MS) });
  });

  it('REVERSED at a poll: REVERSED, and the wallet credited back', async () => {
    const run = await when(
      completed(),
      { type: 'TimerDue' },
      { Status: [status({ status: 'REVERSED', providerReason: 'REVERSED' })] },
      at(POLL_MS),
    );
    expect(run.moneyOut).toMatchObject({ status: 'REVERSED', reversalCredited: true });
    expect(run.settlements).toEqual([{ type: 'CreditReversal' }]);
    expect(run.end.type).toBe('Done');
  });

  it('still SUCCESSFUL: asked again until the watch time is over, then done', async () => {
    const within = await when(
      completed(),
      { type: 'TimerDue' },
      { Status: [status({ status: 'SUCCESSFUL', providerTransactionId: 'mtn-1' })] },
      at(POLL_MS),
    );
    expect(within.end).toMatchObject({ type: 'RetryAt', at: at(2 * POLL_MS) });
    const after = await when(completed(), { type: 'TimerDue' }, {}, at(REVERSAL_WATCH_MS));
    expect(after.calls).toEqual([]);
    expect(after.end.type).toBe('Done');
  });

  it("a provider's callback after the watch time still asks once more, and a reversal is taken", async () => {
    const run = await when(
      completed(),
      { type: 'Notified' },
      { Status: [status({ status: 'REVERSED', providerReason: 'REVERSED' })] },
      at(REVERSAL_WATCH_MS + 60_000),
    );
    expect(run.calls).toEqual(['Status']);
    expect(run.moneyOut.status).toBe('REVERSED');
    expect(run.settlements).toEqual([{ type: 'CreditReversal' }]);
  });

  it('reversed before its completion was seen: the hold captured, then credited back', async () => {
    const run = await when(
      sent(),
      { type: 'TimerDue' },
      { Status: [status({ status: 'REVERSED', providerReason: 'R' })] },
    );
    expect(run.moneyOut).toMatchObject({ status: 'REVERSED', holdSettled: true, reversalCredited: true });
    expect(run.settlements).toEqual([{ type: 'SettleWallet', outcome: 'PAID' }, { type: 'CreditReversal' }]);
  });

  it('a status query unanswered after completion is no reversal: asked again later', async () => {
    const run = await when(completed(), { type: 'TimerDue' }, { Status: [new Error('time-out')] }, at(POLL_MS));
    expect(run.moneyOut.status).toBe('COMPLETED');
    expect(run.end).toMatchObject({ type: 'RetryAt', at: at(2 * POLL_MS) });
  });
});
