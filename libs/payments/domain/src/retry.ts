/**
 * When to try a PRN payment again after a retryable failure (the biller unreachable, a 5xx):
 * exponential back-off from `baseDelayMs`, doubling per attempt, capped at `maxDelayMs`, at
 * most `maxAttempts` attempts in all. Deterministic (no jitter): the next time is recorded in
 * PaymentAttemptFailed, so every process agrees on it.
 */
export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/** 30 s, 1, 2, 4, 8 min, then every 15 min; 8 attempts (about 45 minutes). */
export const DEFAULT_PAYMENT_RETRY: RetryPolicy = { maxAttempts: 8, baseDelayMs: 30_000, maxDelayMs: 15 * 60_000 };

/** Delay after failed attempt `attempt` (1-based). */
export function retryDelayMs(attempt: number, policy: RetryPolicy): number {
  if (!Number.isInteger(attempt) || attempt < 1)
    throw new RangeError(`attempt must be a positive integer, got ${attempt}`);
  // Capping the exponent first keeps 2 ** n finite for any attempt number.
  const exponent = Math.min(attempt - 1, 52);
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** exponent);
}

/** After failed attempt `attempt` at `failedAt`: when to try again, or null when the attempts are spent (GiveUp). */
export function nextPaymentAttemptAt(
  attempt: number,
  failedAt: string,
  policy: RetryPolicy = DEFAULT_PAYMENT_RETRY,
): string | null {
  if (attempt >= policy.maxAttempts) return null;
  return new Date(Date.parse(failedAt) + retryDelayMs(attempt, policy)).toISOString();
}
