/**
 * The token bucket, as pure arithmetic: a bucket holds at most `burst` tokens, refills at
 * `perSecond`, and every request takes one or is refused. Its whole state is one instant, when it
 * will be full again (`fullAtMs`, GCRA's "theoretical arrival time"): at `now` it holds
 * `burst - max(0, fullAt - now) × perSecond` tokens, and a bucket never seen (or full long
 * ago) is full. One number per key is what lets the SQL store decide in one statement.
 */
export interface BucketPolicy {
  /** Tokens added per second, sustained. */
  perSecond: number;
  /** Capacity: requests that may come at once. */
  burst: number;
}

export interface TakeResult {
  allowed: boolean;
  /** The bucket's state after the request (unchanged when refused). */
  fullAtMs: number;
}

/** What the rate-limit headers tell the client after a request. */
export interface Quota {
  limit: number;
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
  /** Seconds until the bucket refills to a whole token (for a refused request). */
  retryAfterSeconds: number;
  /** Seconds a bucket takes to refill from empty. */
  windowSeconds: number;
}

/** Rounding slack: bucket arithmetic in milliseconds is not exact in floating point. */
const EPSILON = 1e-9;

export const tokenIntervalMs = (policy: BucketPolicy) => 1_000 / policy.perSecond;
export const bucketWindowMs = (policy: BucketPolicy) => (policy.burst * 1_000) / policy.perSecond;

export function tokensAt(fullAtMs: number | undefined, policy: BucketPolicy, nowMs: number): number {
  if (fullAtMs === undefined) return policy.burst;
  return policy.burst - (Math.max(0, fullAtMs - nowMs) * policy.perSecond) / 1_000;
}

/** One request at `nowMs` against a bucket full at `fullAtMs` (undefined: never seen). */
export function takeToken(fullAtMs: number | undefined, policy: BucketPolicy, nowMs: number): TakeResult {
  const next = Math.max(fullAtMs ?? nowMs, nowMs) + tokenIntervalMs(policy);
  if (tokensAt(next, policy, nowMs) < -EPSILON) return { allowed: false, fullAtMs: fullAtMs ?? nowMs };
  return { allowed: true, fullAtMs: next };
}

export function quotaAt(fullAtMs: number, policy: BucketPolicy, nowMs: number): Quota {
  const tokens = tokensAt(fullAtMs, policy, nowMs);
  return {
    limit: policy.burst,
    remaining: Math.max(0, Math.floor(tokens + EPSILON)),
    resetSeconds: Math.ceil(Math.max(0, fullAtMs - nowMs) / 1_000 - EPSILON),
    retryAfterSeconds: Math.max(1, Math.ceil(((1 - tokens) * 1_000) / policy.perSecond / 1_000 - EPSILON)),
    windowSeconds: Math.max(1, Math.ceil(bucketWindowMs(policy) / 1_000 - EPSILON)),
  };
}
