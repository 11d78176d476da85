import { CommandRejectedError } from '@paygate/contracts';
import type { RefundAllocationEvent } from './events';
import {
  decideRefundAllocation,
  evolveRefundAllocation,
  refundableLeft,
  type RefundableCollection,
  type RefundAllocationCommand,
  type RefundAllocationState,
} from './refund-allocation';

const T0 = '2026-11-28T10:00:00.000Z';
const COLLECTION: RefundableCollection = {
  internalReference: 'PGREF000000000000000000001',
  merchantId: 'mer_1',
  currency: 'UGX',
  status: 'COMPLETED',
  transactionAmount: 100_000,
};
const allocate = (refundReference: string, requestedAmount: number | null, collection = COLLECTION) =>
  ({ type: 'Allocate', collection, refundReference, requestedAmount, at: T0 }) as const;

function apply(state: RefundAllocationState, command: RefundAllocationCommand): RefundAllocationState {
  return decideRefundAllocation(command, state).reduce<RefundAllocationState>(
    (current, event: RefundAllocationEvent) => evolveRefundAllocation(current, event),
    state,
  );
}

function refusal(command: RefundAllocationCommand, state: RefundAllocationState): CommandRejectedError {
  try {
    decideRefundAllocation(command, state);
  } catch (error) {
    if (error instanceof CommandRejectedError) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe("a collection's refunds never return more than was collected", () => {
  it('partial refunds add up to the collected amount, counting those in flight; the next is refused naming what is left', () => {
    let state = apply(null, allocate('r-1', 30_000));
    state = apply(state, allocate('r-2', 50_000));
    expect(refundableLeft(state, COLLECTION)).toBe(20_000);
    const refused = refusal(allocate('r-3', 20_001), state);
    expect(refused.code).toBe('invalid_request');
    expect(refused.details).toEqual({ errors: [{ field: 'amount', message: refused.message }] });
    expect(refused.message).toContain('UGX 20,000');
  });

  it('an amount left out refunds all that is left; then nothing is left', () => {
    const state = apply(apply(null, allocate('r-1', 30_000)), allocate('r-2', null));
    expect(state?.refunds['r-2']).toEqual({ amount: 70_000, refunded: false });
    expect(refusal(allocate('r-3', null), state).message).toContain('nothing left to refund');
  });

  it('of twenty refunds of 20 % each, five are allocated and fifteen refused', () => {
    let state: RefundAllocationState = null;
    let accepted = 0;
    for (let n = 1; n <= 20; n++) {
      try {
        state = apply(state, allocate(`r-${n}`, 20_000));
        accepted++;
      } catch (error) {
        expect((error as CommandRejectedError).code).toBe('invalid_request');
      }
    }
    expect(accepted).toBe(5);
  });

  it('a refund the provider refused is released: its amount is refundable again', () => {
    let state = apply(null, allocate('r-1', 100_000));
    state = apply(state, { type: 'Release', refundReference: 'r-1', at: T0 });
    expect(refundableLeft(state, COLLECTION)).toBe(100_000);
  });

  it('a refund made stays counted and cannot be released', () => {
    let state = apply(null, allocate('r-1', 40_000));
    state = apply(state, { type: 'MarkRefunded', refundReference: 'r-1', at: T0 });
    expect(refundableLeft(state, COLLECTION)).toBe(60_000);
    expect(() => decideRefundAllocation({ type: 'Release', refundReference: 'r-1', at: T0 }, state)).toThrow();
  });

  it('the same refund asked again is allocated once; another amount under its reference is a duplicate', () => {
    const state = apply(null, allocate('r-1', 40_000));
    expect(decideRefundAllocation(allocate('r-1', 40_000), state)).toEqual([]);
    expect(refusal(allocate('r-1', 10_000), state).code).toBe('duplicate_reference');
  });

  it.each(['PENDING', 'FAILED', 'CANCELLED'])(
    'a %s collection cannot be refunded (naming internal_reference)',
    (status) => {
      const refused = refusal(allocate('r-1', 1_000, { ...COLLECTION, status }), null);
      expect(refused.code).toBe('invalid_request');
      expect(refused.details).toMatchObject({ errors: [{ field: 'internal_reference' }] });
    },
  );
});
