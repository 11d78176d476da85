import { MemoryRateLimitStore } from './rate-limit-store';
import { PRUNE_EVERY_MS, RateLimiter, type RateLimitConfig } from './rate-limiter';

const POLICY = { perSecond: 10, burst: 20 };
const CONFIG = { enabled: true, merchant: POLICY, public: POLICY, provider: POLICY } as RateLimitConfig;

/** The memory store, counting its prunes. */
class CountedStore extends MemoryRateLimitStore {
  prunes = 0;
  override async prune(): Promise<void> {
    this.prunes += 1;
    await super.prune();
  }
}

describe('the rate limiter forgetting full buckets', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('looks once after traffic and never while idle: an idle gateway issues no statement for its buckets', async () => {
    const store = new CountedStore();
    const limiter = new RateLimiter(CONFIG, store);
    try {
      jest.advanceTimersByTime(3 * PRUNE_EVERY_MS);
      expect(store.prunes).toBe(0);

      await limiter.check('merchant', 'm1');
      await limiter.check('public', '127.0.0.1');
      jest.advanceTimersByTime(PRUNE_EVERY_MS);
      expect(store.prunes).toBe(1);

      jest.advanceTimersByTime(3 * PRUNE_EVERY_MS);
      expect(store.prunes).toBe(1);

      await limiter.check('merchant', 'm1');
      jest.advanceTimersByTime(PRUNE_EVERY_MS);
      expect(store.prunes).toBe(2);
    } finally {
      limiter.onModuleDestroy();
    }
  });
});
