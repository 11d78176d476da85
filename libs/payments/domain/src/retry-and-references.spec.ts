/** The PRN payment's retry schedule and the ids derived from the internal reference. */
import { DEFAULT_PAYMENT_RETRY, nextPaymentAttemptAt, retryDelayMs, type RetryPolicy } from './retry';
import { feeHoldId, paymentIdempotencyKey, prnHoldId, prnTransferId } from './references';

const POLICY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 1_000, maxDelayMs: 5_000 };

describe('retry schedule', () => {
  it('doubles from the base and stops at the cap', () => {
    expect([1, 2, 3, 4, 5, 6].map((attempt) => retryDelayMs(attempt, POLICY))).toEqual([
      1_000, 2_000, 4_000, 5_000, 5_000, 5_000,
    ]);
  });

  it('stays at the cap for absurd attempt numbers', () => {
    expect(retryDelayMs(10_000, POLICY)).toBe(5_000);
  });

  it('refuses attempt numbers below 1', () => {
    expect(() => retryDelayMs(0, POLICY)).toThrow(RangeError);
    expect(() => retryDelayMs(1.5, POLICY)).toThrow(RangeError);
  });

  it('gives the next time after each failed attempt, and null once the attempts are spent', () => {
    const failedAt = '2025-03-01T10:00:00.000Z';
    expect([1, 2, 3, 4, 5].map((attempt) => nextPaymentAttemptAt(attempt, failedAt, POLICY))).toEqual([
      '2025-03-01T10:00:01.000Z',
      '2025-03-01T10:00:02.000Z',
      '2025-03-01T10:00:04.000Z',
      '2025-03-01T10:00:05.000Z',
      null,
    ]);
    expect(nextPaymentAttemptAt(1, failedAt, { ...POLICY, maxAttempts: 1 })).toBeNull();
  });

  it('by default: 30 s doubling to 15 min, 8 attempts', () => {
    const delays = Array.from(
      { length: DEFAULT_PAYMENT_RETRY.maxAttempts - 1 },
      (_, index) => retryDelayMs(index + 1, DEFAULT_PAYMENT_RETRY) / 1000,
    );
    expect(delays).toEqual([30, 60, 120, 240, 480, 900, 900]);
    expect(nextPaymentAttemptAt(8, '2025-03-01T10:00:00.000Z')).toBeNull();
  });
});

describe('references', () => {
  const REF = 'PGPAY00000000000000000001';

  it('derives one idempotency key per internal reference: a version-5 UUID, the same on every retry', () => {
    const key = paymentIdempotencyKey(REF);
    expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(paymentIdempotencyKey(REF)).toBe(key);
    expect(paymentIdempotencyKey('PGPAY00000000000000000002')).not.toBe(key);
  });

  it('names the holds and the capture after the internal reference', () => {
    expect([feeHoldId(REF), prnHoldId(REF), prnTransferId(REF)]).toEqual([
      `fee:${REF}`,
      `prn:${REF}`,
      `prn-payment:${REF}`,
    ]);
  });
});
