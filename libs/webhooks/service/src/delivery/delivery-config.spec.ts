import { afterAttempt, jittered, sendableTarget } from './delivery-config';

// The delivery variables are parsed with the rest of the configuration: libs/config/src/load-config.spec.ts.

describe('jittered', () => {
  it('stays within ±10% and leaves 0 alone', () => {
    expect(jittered(1_000, () => 0)).toBe(900);
    expect(jittered(1_000, () => 1)).toBe(1_100);
    expect(jittered(0, () => 1)).toBe(0);
    for (let i = 0; i < 1_000; i++) {
      const delay = jittered(60_000);
      expect(delay).toBeGreaterThanOrEqual(54_000);
      expect(delay).toBeLessThanOrEqual(66_000);
    }
  });
});

describe('afterAttempt', () => {
  const schedule = [0, 1_000, 60_000];
  const exact = () => 0.5;

  it('delivers on any 2xx and abandons on 410 Gone, wherever the delivery is in its schedule', () => {
    for (const statusCode of [200, 202, 204, 299])
      expect(afterAttempt({ statusCode }, 1, schedule, exact)).toEqual({ state: 'delivered', delayMs: 0 });
    expect(afterAttempt({ statusCode: 410 }, 1, schedule, exact)).toEqual({ state: 'abandoned', delayMs: 0 });
  });

  it('waits the next step of the schedule after a failure, and abandons after the last', () => {
    expect(afterAttempt({ statusCode: 500 }, 1, schedule, exact)).toEqual({ state: 'pending', delayMs: 1_000 });
    expect(afterAttempt({}, 2, schedule, exact)).toEqual({ state: 'pending', delayMs: 60_000 });
    expect(afterAttempt({ statusCode: 301 }, 3, schedule, exact)).toEqual({ state: 'abandoned', delayMs: 0 });
  });

  it("waits for the receiver's Retry-After when it is later than the schedule's step, never sooner", () => {
    expect(afterAttempt({ statusCode: 503, retryAfterMs: 30_000 }, 1, schedule, exact)).toEqual({
      state: 'pending',
      delayMs: 30_000,
    });
    expect(afterAttempt({ statusCode: 503, retryAfterMs: 10 }, 1, schedule, exact)).toEqual({
      state: 'pending',
      delayMs: 1_000,
    });
  });
});

describe('sendableTarget', () => {
  it('groups deliveries by host, and says why a URL can never be sent to', () => {
    expect(sendableTarget('https://shop.example:8443/hooks?x=1')).toEqual({ host: 'shop.example', problem: null });
    expect(sendableTarget(null)).toEqual({ host: null, problem: 'no callback URL' });
    expect(sendableTarget('not a url')).toEqual({ host: null, problem: 'callback URL is not a valid URL' });
    expect(sendableTarget('ftp://shop.example/hooks')).toEqual({
      host: null,
      problem: 'callback URL is not http: or https:',
    });
  });
});
