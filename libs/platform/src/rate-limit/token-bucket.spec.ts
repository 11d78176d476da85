import { quotaAt, takeToken, type BucketPolicy } from './token-bucket';

const policy: BucketPolicy = { perSecond: 2, burst: 3 };

/** Takes `count` tokens at `nowMs`, one after another; the last state and how many were allowed. */
function burst(fullAtMs: number | undefined, count: number, nowMs: number) {
  let state = fullAtMs;
  let allowed = 0;
  for (let i = 0; i < count; i++) {
    const result = takeToken(state, policy, nowMs);
    if (result.allowed) allowed++;
    state = result.fullAtMs;
  }
  return { state: state as number, allowed };
}

describe('token bucket', () => {
  it('lets a burst of its capacity through at once and refuses the next', () => {
    expect(burst(undefined, 10, 0).allowed).toBe(3);
  });

  it('leaves a refused request without effect: refusals do not push the refill back', () => {
    const { state } = burst(undefined, 3, 0);
    expect(takeToken(state, policy, 100)).toEqual({ allowed: false, fullAtMs: state });
    expect(takeToken(state, policy, 500).allowed).toBe(true);
  });

  it('refills one token per 1/perSecond and is full again after burst/perSecond', () => {
    const { state } = burst(undefined, 3, 0);
    expect(state).toBe(1_500);
    expect(burst(state, 10, 499).allowed).toBe(0);
    expect(burst(state, 10, 500).allowed).toBe(1);
    expect(burst(state, 10, 1_000).allowed).toBe(2);
    expect(burst(state, 10, 1_500).allowed).toBe(3);
    expect(burst(state, 10, 60_000).allowed).toBe(3);
  });

  it('keeps the last token of a burst whose interval is not exact in floating point', () => {
    const thirds: BucketPolicy = { perSecond: 3, burst: 7 };
    let state: number | undefined;
    let allowed = 0;
    for (let i = 0; i < 7; i++) {
      const result = takeToken(state, thirds, 0);
      allowed += result.allowed ? 1 : 0;
      state = result.fullAtMs;
    }
    expect(allowed).toBe(7);
  });

  it('describes the bucket for the RateLimit headers', () => {
    const { state } = burst(undefined, 1, 0);
    expect(quotaAt(state, policy, 0)).toEqual({
      limit: 3,
      remaining: 2,
      resetSeconds: 1,
      retryAfterSeconds: 1,
      windowSeconds: 2,
    });
    const empty = burst(undefined, 3, 0).state;
    expect(quotaAt(empty, policy, 0)).toEqual({
      limit: 3,
      remaining: 0,
      resetSeconds: 2,
      retryAfterSeconds: 1,
      windowSeconds: 2,
    });
    const slow: BucketPolicy = { perSecond: 0.1, burst: 2 };
    const drained = takeToken(takeToken(undefined, slow, 0).fullAtMs, slow, 0).fullAtMs;
    expect(quotaAt(drained, slow, 2_500)).toEqual({
      limit: 2,
      remaining: 0,
      resetSeconds: 18,
      retryAfterSeconds: 8,
      windowSeconds: 20,
    });
  });
});
