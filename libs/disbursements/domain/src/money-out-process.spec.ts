import {
  ATTENTION_MS,
  given,
  payoutRequest,
  POLL_MS,
  refundRequest,
  status,
  T0,
  timeOut,
  when,
} from './disbursements-test-setup';

/** Given a money-out's history, when something happens (and the provider answers so), then what the run does. */
const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();

describe('a refund or payout asks its provider once accepted', () => {
  it('sent and registered: PENDING provider_processing, asked again after the poll interval', async () => {
    const run = await when(given(refundRequest()), { type: 'Accepted' }, { Send: [{ type: 'SendAccepted' }] });
    expect(run.calls).toEqual(['Send']);
    expect(run.moneyOut).toMatchObject({ status: 'PENDING', pendingReason: 'provider_processing', sends: 1 });
    expect(run.end).toMatchObject({ type: 'RetryAt', at: at(POLL_MS) });
    expect(run.settlements).toEqual([]);
  });

  it('refused by the provider: FAILED with its reason, the hold released and the allocation given back', async () => {
    const run = await when(
      given(refundRequest()),
      { type: 'Accepted' },
      { Send: [{ type: 'SendRefused', reason: 'the provider refused the refund' }] },
    );
    expect(run.moneyOut).toMatchObject({ status: 'FAILED', failureReason: 'the provider refused the refund' });
    expect(run.settlements).toEqual([
      { type: 'SettleWallet', outcome: 'NOT_PAID' },
      { type: 'SettleAllocation', outcome: 'NOT_PAID' },
    ]);
    expect(run.moneyOut.holdSettled).toBe(true);
    expect(run.end.type).toBe('Done');
  });

  it('a send that times out is not a failure: PENDING provider_unconfirmed, its hold kept', async () => {
    const run = await when(given(payoutRequest()), { type: 'Accepted' }, { Send: [timeOut()] });
    expect(run.moneyOut).toMatchObject({ status: 'PENDING', pendingReason: 'provider_unconfirmed', sends: 1 });
    expect(run.settlements).toEqual([]);
    expect(run.end).toMatchObject({ type: 'RetryAt', at: at(POLL_MS) });
  });
});

describe('the reconciler asks with the same reference until the provider has said', () => {
  const unconfirmed = () => given(payoutRequest(), { type: 'RecordUnconfirmed', detail: 'time-out', at: T0 });

  it('SUCCESSFUL: COMPLETED, the hold captured; a payout has no allocation to settle', async () => {
    const run = await when(
      unconfirmed(),
      { type: 'TimerDue' },
      { Status: [status({ status: 'SUCCESSFUL', providerTransactionId: 'mtn-1' })] },
    );
    expect(run.calls).toEqual(['Status']);
    expect(run.moneyOut).toMatchObject({ status: 'COMPLETED', providerTransactionId: 'mtn-1', holdSettled: true });
    expect(run.settlements).toEqual([{ type: 'SettleWallet', outcome: 'PAID' }]);
  });

  it('a refund COMPLETED also marks its allocation refunded', async () => {
    const sent = given(refundRequest(), { type: 'RecordSent', at: T0 });
    const run = await when(
      sent,
      { type: 'Notified' },
      { Status: [status({ status: 'SUCCESSFUL', providerTransactionId: 'mtn-2' })] },
    );
    expect(run.settlements).toEqual([
      { type: 'SettleWallet', outcome: 'PAID' },
      { type: 'SettleAllocation', outcome: 'PAID' },
    ]);
  });

  it('NOT_FOUND (never registered): sent again, same reference, counted as the second send', async () => {
    const run = await when(
      unconfirmed(),
      { type: 'TimerDue' },
      { Status: [status({ status: 'NOT_FOUND' })], Send: [{ type: 'SendAccepted' }] },
    );
    expect(run.calls).toEqual(['Status', 'Send']);
    expect(run.moneyOut).toMatchObject({ status: 'PENDING', pendingReason: 'provider_processing', sends: 2 });
  });

  it('FAILED by the provider: FAILED, the hold released, and the payout no longer counted in its day', async () => {
    const run = await when(
      unconfirmed(),
      { type: 'TimerDue' },
      { Status: [status({ status: 'FAILED', providerReason: 'PAYEE_NOT_FOUND' })] },
    );
    expect(run.moneyOut).toMatchObject({ status: 'FAILED', failureReason: 'PAYEE_NOT_FOUND' });
    expect(run.settlements).toEqual([{ type: 'SettleWallet', outcome: 'NOT_PAID' }, { type: 'UncountPayout' }]);
  });

  it('a status query that goes unanswered, however often, never fails it', async () => {
    let moneyOut = unconfirmed();
    for (let poll = 1; poll <= 5; poll++) {
      const run = await when(moneyOut, { type: 'TimerDue' }, { Status: [timeOut()] }, at(poll * POLL_MS));
      expect(run.end).toMatchObject({ type: 'RetryAt', at: at((poll + 1) * POLL_MS) });
      moneyOut = run.moneyOut;
    }
    expect(moneyOut).toMatchObject({ status: 'PENDING', pendingReason: 'provider_unconfirmed', sends: 1 });
  });

  it('still unconfirmed after the attention time: flagged for operators once, and still asked', async () => {
    const first = await when(unconfirmed(), { type: 'TimerDue' }, { Status: [timeOut()] }, at(ATTENTION_MS));
    expect(first.moneyOut.needsAttention).toBe(true);
    expect(first.end.type).toBe('RetryAt');
    const next = await when(
      first.moneyOut,
      { type: 'TimerDue' },
      { Status: [status({ status: 'PENDING' })] },
      at(ATTENTION_MS + POLL_MS),
    );
    expect(next.moneyOut.needsAttention).toBe(true);
    const done = await when(
      next.moneyOut,
      { type: 'TimerDue' },
      { Status: [status({ status: 'SUCCESSFUL', providerTransactionId: 'mtn-3' })] },
    );
    expect(done.moneyOut).toMatchObject({ status: 'COMPLETED', needsAttention: false });
  });

  it('a money-out whose hold is settled asks nothing more', async () => {
    const finished = given(
      refundRequest(),
      { type: 'RecordCompleted', providerTransactionId: 'mtn-4', at: T0 },
      { type: 'RecordHoldSettled', at: T0 },
    );
    const run = await when(finished, { type: 'TimerDue' });
    expect(run.calls).toEqual([]);
    expect(run.settlements).toEqual([]);
    expect(run.end.type).toBe('Done');
  });

  it('final but its hold not yet settled (a crash in between): settled on the next run, without asking', async () => {
    const completed = given(refundRequest(), { type: 'RecordCompleted', providerTransactionId: 'mtn-5', at: T0 });
    const run = await when(completed, { type: 'TimerDue' });
    expect(run.calls).toEqual([]);
    expect(run.settlements).toEqual([
      { type: 'SettleWallet', outcome: 'PAID' },
      { type: 'SettleAllocation', outcome: 'PAID' },
    ]);
  });
});
