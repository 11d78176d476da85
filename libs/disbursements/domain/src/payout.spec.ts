import { CommandRejectedError, DISBURSEMENTS_INTEGRATION_SCHEMAS } from '@paygate/contracts';
import { eventSchemaErrors } from '@paygate/testing';
import { MONEY_OUT_EVENT_SCHEMAS } from './events';
import { decideMoneyOut, evolveMoneyOut, type MoneyOut, type MoneyOutCommand } from './money-out';
import { moneyOutDecider } from './money-out-decider';
import { given, givenRequest, payoutRequest, T0 } from './disbursements-test-setup';

const T1 = '2026-11-28T10:00:30.000Z';
const THRESHOLD = 5_000_000;

const refusalOf = (act: () => unknown) => {
  try {
    act();
  } catch (error) {
    return error as CommandRejectedError;
  }
  throw new Error('expected a refusal');
};

/** Given a payout's history, when a command is decided: the events, the payout after them and what it publishes. */
function when(history: MoneyOut, command: MoneyOutCommand) {
  const events = decideMoneyOut(command, history);
  const after = events.reduce<MoneyOut | null>(evolveMoneyOut, history)!;
  const published = moneyOutDecider.publish?.(events, after) ?? [];
  for (const event of [...events, ...published])
    expect(eventSchemaErrors({ ...MONEY_OUT_EVENT_SCHEMAS, ...DISBURSEMENTS_INTEGRATION_SCHEMAS }, event)).toEqual([]);
  return { events, after, published };
}

const aboveThreshold = (createdBy: string | null = null) =>
  givenRequest({
    type: 'Request',
    request: payoutRequest({ requestedAmount: THRESHOLD + 1, amount: THRESHOLD + 1 }),
    approvalThreshold: THRESHOLD,
    createdBy,
  });

describe("a payout and its merchant's approval threshold", () => {
  it('above the threshold it waits for approval, its hold already placed; nothing is sent', () => {
    expect(aboveThreshold('usr_a')).toMatchObject({
      status: 'PENDING_APPROVAL',
      pendingReason: null,
      approval: { threshold: THRESHOLD, createdBy: 'usr_a', approvedBy: null },
    });
  });

  it('at the threshold, or with no threshold, it is PENDING at once', () => {
    const at = givenRequest({
      type: 'Request',
      request: payoutRequest({ requestedAmount: THRESHOLD, amount: THRESHOLD }),
      approvalThreshold: THRESHOLD,
    });
    expect(at.status).toBe('PENDING');
    const none = givenRequest({ type: 'Request', request: payoutRequest(), approvalThreshold: null });
    expect(none.status).toBe('PENDING');
  });

  it('approved by another owner: PENDING, approver recorded', () => {
    const { after } = when(aboveThreshold('usr_a'), { type: 'Approve', approverId: 'usr_b', at: T1 });
    expect(after).toMatchObject({ status: 'PENDING', approval: { createdBy: 'usr_a', approvedBy: 'usr_b' } });
  });

  it('the dashboard user who asked for it cannot approve it', () => {
    const refusal = refusalOf(() =>
      decideMoneyOut({ type: 'Approve', approverId: 'usr_a', at: T1 }, aboveThreshold('usr_a')),
    );
    expect(refusal.code).toBe('invalid_request');
    expect(refusal.details).toMatchObject({ errors: [{ field: 'approver_id' }] });
  });

  it('one asked through the API can be approved by any owner', () => {
    expect(when(aboveThreshold(null), { type: 'Approve', approverId: 'usr_a', at: T1 }).after.status).toBe('PENDING');
  });

  it('approving again changes nothing; approving one that never waited is refused', () => {
    const approved = when(aboveThreshold(), { type: 'Approve', approverId: 'usr_b', at: T1 }).after;
    expect(decideMoneyOut({ type: 'Approve', approverId: 'usr_c', at: T1 }, approved)).toEqual([]);
    const refusal = refusalOf(() =>
      decideMoneyOut({ type: 'Approve', approverId: 'usr_b', at: T1 }, given(payoutRequest())),
    );
    expect(refusal.code).toBe('not_awaiting_confirmation');
  });

  it('cancelled while waiting: CANCELLED with why, published; a cancel after approval changes nothing', () => {
    const { after, published } = when(aboveThreshold(), { type: 'Cancel', reason: 'not approved in time', at: T1 });
    expect(after).toMatchObject({ status: 'CANCELLED', failureReason: 'not approved in time' });
    expect(published).toEqual([
      {
        type: 'disbursements.PayoutSettled',
        version: 1,
        data: {
          payout: expect.objectContaining({ status: 'CANCELLED', failureReason: 'not approved in time' }),
          settledAt: T1,
        },
      },
    ]);
    const approved = when(aboveThreshold(), { type: 'Approve', approverId: 'usr_b', at: T1 }).after;
    expect(decideMoneyOut({ type: 'Cancel', reason: 'late', at: T1 }, approved)).toEqual([]);
  });
});

describe('a payout its provider reverses', () => {
  const completed = () =>
    given(
      payoutRequest(),
      { type: 'RecordSent', at: T0 },
      { type: 'RecordCompleted', providerTransactionId: 'm-1', at: T0 },
    );

  it('COMPLETED then REVERSED with what the provider said; the hold stays captured, and is credited back once', () => {
    const settled = when(completed(), { type: 'RecordHoldSettled', at: T0 }).after;
    const { after } = when(settled, { type: 'RecordReversed', reason: 'REVERSED', at: T1 });
    expect(after).toMatchObject({ status: 'REVERSED', failureReason: 'REVERSED', holdSettled: true });
    const credited = when(after, { type: 'RecordReversalCredited', at: T1 }).after;
    expect(credited.reversalCredited).toBe(true);
    expect(decideMoneyOut({ type: 'RecordReversalCredited', at: T1 }, credited)).toEqual([]);
  });

  it('a failed payout, or a refund, is never reversed', () => {
    const failed = given(payoutRequest(), { type: 'RecordFailed', reason: 'x', at: T0 });
    expect(decideMoneyOut({ type: 'RecordReversed', reason: 'REVERSED', at: T1 }, failed)).toEqual([]);
    const refund = given(payoutRequest({ kind: 'REFUND' }), {
      type: 'RecordCompleted',
      providerTransactionId: 'm-1',
      at: T0,
    });
    expect(decideMoneyOut({ type: 'RecordReversed', reason: 'REVERSED', at: T1 }, refund)).toEqual([]);
  });

  it('a reversed payout holds its place: a later SUCCESSFUL changes nothing', () => {
    const reversed = when(completed(), { type: 'RecordReversed', reason: 'REVERSED', at: T1 }).after;
    expect(decideMoneyOut({ type: 'RecordCompleted', providerTransactionId: 'm-1', at: T1 }, reversed)).toEqual([]);
  });
});

describe('what a payout publishes: disbursements.PayoutSettled', () => {
  it('COMPLETED, with the payout as it ended (amount, fee, recipient)', () => {
    const sent = given(payoutRequest({ recipientName: 'Jane Doe' }), { type: 'RecordSent', at: T0 });
    const { published } = when(sent, { type: 'RecordCompleted', providerTransactionId: 'm-1', at: T1 });
    expect(published).toEqual([
      {
        type: 'disbursements.PayoutSettled',
        version: 1,
        data: {
          payout: {
            merchantId: 'mer_1',
            payoutReference: 'po-1',
            amount: 20_000,
            fee: 500,
            currency: 'UGX',
            providerCode: 'mtn_momo_ug',
            msisdn: '256772000001',
            recipientName: 'Jane Doe',
            status: 'COMPLETED',
            failureReason: null,
            livemode: false,
            createdAt: T0,
            updatedAt: T1,
          },
          settledAt: T1,
        },
      },
    ]);
  });

  it('FAILED and REVERSED with what the provider said, once each', () => {
    const failed = when(given(payoutRequest()), { type: 'RecordFailed', reason: 'PAYEE_NOT_FOUND', at: T1 });
    expect(failed.published[0].data).toMatchObject({ payout: { status: 'FAILED', failureReason: 'PAYEE_NOT_FOUND' } });
    const completed = given(payoutRequest(), { type: 'RecordCompleted', providerTransactionId: 'm-1', at: T0 });
    const reversed = when(completed, { type: 'RecordReversed', reason: 'REVERSED', at: T1 });
    expect(reversed.published).toHaveLength(1);
    expect(reversed.published[0].data).toMatchObject({ payout: { status: 'REVERSED', failureReason: 'REVERSED' } });
    expect(when(reversed.after, { type: 'RecordReversed', reason: 'REVERSED', at: T1 }).published).toEqual([]);
  });

  it('nothing while it waits for approval or for its provider', () => {
    expect(when(aboveThreshold(), { type: 'Approve', approverId: 'usr_b', at: T1 }).published).toEqual([]);
    expect(when(given(payoutRequest()), { type: 'RecordSent', at: T1 }).published).toEqual([]);
  });
});
