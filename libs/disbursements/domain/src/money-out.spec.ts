import { CommandRejectedError } from '@paygate/contracts';
import { decideMoneyOut } from './money-out';
import { given, refundRequest, T0 } from './disbursements-test-setup';

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
