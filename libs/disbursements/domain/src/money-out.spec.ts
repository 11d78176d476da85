import { CommandRejectedError, DISBURSEMENTS_INTEGRATION_SCHEMAS } from '@paygate/contracts';
import { eventSchemaErrors } from '@paygate/testing';
import { MONEY_OUT_EVENT_SCHEMAS } from './events';
import { decideMoneyOut, evolveMoneyOut, type MoneyOut, type MoneyOutCommand } from './money-out';
import { moneyOutDecider } from './money-out-decider';
import { given, refundRequest, T0 } from './disbursements-test-setup';

const T1 = '2026-11-28T10:00:30.000Z';
const schemaErrorsOf = (event: { type: string; data: unknown }) =>
  eventSchemaErrors({ ...MONEY_OUT_EVENT_SCHEMAS, ...DISBURSEMENTS_INTEGRATION_SCHEMAS }, event);

describe('a money-out request and its reference', () => {
  it('the same reference with the same request is the same money-out: nothing new is decided', () => {
    expect(
      decideMoneyOut(
        { type: 'Request', request: refundRequest({ requestedAt: '2026-11-28T10:05:00.000Z' }) },
        given(refundRequest()),
      ),
    ).toEqual([]);
  });

  it.each([
    ['another amount', { requestedAmount: 10_000, amount: 10_000 }],
    ['another collection', { internalReference: 'PGREF000000000000000000002' }],
    ['another reason', { reason: 'damaged goods' }],
  ])('the same reference with %s is refused as a duplicate', (_what, change) => {
    const refusal = (() => {
      try {
        decideMoneyOut({ type: 'Request', request: refundRequest(change) }, given(refundRequest()));
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(CommandRejectedError);
    expect((refusal as CommandRejectedError).code).toBe('duplicate_reference');
    expect((refusal as CommandRejectedError).message).toContain('refund_reference rf-1');
  });
});

describe('final states are never left', () => {
  it('COMPLETED ignores a later FAILED, and FAILED a later SUCCESSFUL', () => {
    const completed = given(refundRequest(), { type: 'RecordCompleted', providerTransactionId: 'm-1', at: T0 });
    expect(decideMoneyOut({ type: 'RecordFailed', reason: 'late', at: T0 }, completed)).toEqual([]);
    const failed = given(refundRequest(), { type: 'RecordFailed', reason: 'refused', at: T0 });
    expect(decideMoneyOut({ type: 'RecordCompleted', providerTransactionId: 'm-2', at: T0 }, failed)).toEqual([]);
    expect(decideMoneyOut({ type: 'RecordSent', at: T0 }, failed)).toEqual([]);
  });

  it('the hold is settled once, PAID for COMPLETED and NOT_PAID for FAILED, and never while pending', () => {
    const completed = given(refundRequest(), { type: 'RecordCompleted', providerTransactionId: 'm-1', at: T0 });
    expect(decideMoneyOut({ type: 'RecordHoldSettled', at: T0 }, completed)).toEqual([
      { type: 'MoneyOutHoldSettled', data: { outcome: 'PAID', settledAt: T0 } },
    ]);
    const failed = given(
      refundRequest(),
      { type: 'RecordFailed', reason: 'x', at: T0 },
      { type: 'RecordHoldSettled', at: T0 },
    );
    expect(failed.holdSettled).toBe(true);
    expect(decideMoneyOut({ type: 'RecordHoldSettled', at: T0 }, failed)).toEqual([]);
    expect(() => decideMoneyOut({ type: 'RecordHoldSettled', at: T0 }, given(refundRequest()))).toThrow();
  });
});

describe('what a refund publishes', () => {
  const publish = (history: MoneyOut, command: MoneyOutCommand) => {
    const events = decideMoneyOut(command, history);
    const after = events.reduce<MoneyOut | null>(evolveMoneyOut, history);
    const published = moneyOutDecider.publish?.(events, after) ?? [];
    for (const event of [...events, ...published]) expect(schemaErrorsOf(event)).toEqual([]);
    return published;
  };

  it('disbursements.RefundSettled once, when the provider completed it, with the refund as it ended', () => {
    const sent = given(refundRequest({ reason: 'damaged' }), { type: 'RecordSent', at: T0 });
    const [settled, ...more] = publish(sent, { type: 'RecordCompleted', providerTransactionId: 'm-1', at: T1 });
    expect(more).toEqual([]);
    expect(settled).toEqual({
      type: 'disbursements.RefundSettled',
      version: 1,
      data: {
        refund: {
          merchantId: 'mer_1',
          refundReference: 'rf-1',
          internalReference: 'PGREF000000000000000000001',
          merchantReference: 'order-1001',
          amount: 20_000,
          currency: 'UGX',
          status: 'COMPLETED',
          failureReason: null,
          reason: 'damaged',
          livemode: false,
          createdAt: T0,
          updatedAt: T1,
        },
        settledAt: T1,
      },
    });
    const completed = given(refundRequest(), { type: 'RecordCompleted', providerTransactionId: 'm-1', at: T1 });
    expect(publish(completed, { type: 'RecordCompleted', providerTransactionId: 'm-1', at: T1 })).toEqual([]);
  });

  it('FAILED with what the provider said', () => {
    const [settled] = publish(given(refundRequest()), { type: 'RecordFailed', reason: 'NOT_ALLOWED', at: T1 });
    expect(settled.data).toMatchObject({ refund: { status: 'FAILED', failureReason: 'NOT_ALLOWED' } });
  });

  it('nothing while pending', () => {
    expect(publish(given(refundRequest()), { type: 'RecordSent', at: T1 })).toEqual([]);
  });
});
