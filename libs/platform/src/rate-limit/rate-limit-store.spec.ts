import { openSqlDatabase, type SqlDatabase } from '@paygate/sql';
import { describeWithService, eventually, uniqueSchema } from '@paygate/testing';
import { MemoryRateLimitStore, SqlRateLimitStore, type RateLimitStore } from './rate-limit-store';
import type { BucketPolicy } from './token-bucket';

/** One token per 1000 s: nothing refills while a test runs, so counts are exact. */
const NO_REFILL: BucketPolicy = { perSecond: 0.001, burst: 5 };

async function takeConcurrently(stores: RateLimitStore[], key: string, count: number, policy = NO_REFILL) {
  const results = await Promise.all(
    Array.from({ length: count }, (_, i) => stores[i % stores.length].take(key, policy)),
  );
  return results.filter((result) => result.allowed).length;
}

/** What every store does, whatever holds the buckets. */
function storeConformance(open: () => Promise<{ stores: RateLimitStore[]; close(): Promise<void> }>) {
  let stores: RateLimitStore[];
  let close: () => Promise<void>;
  beforeAll(async () => ({ stores, close } = await open()));
  afterAll(() => close());
  const key = (name: string) => `${name}-${Math.random().toString(36).slice(2)}`;

  it('allows exactly the burst of concurrent takes on one key', async () => {
    expect(await takeConcurrently(stores, key('burst'), 20)).toBe(5);
  });

  it('keeps keys apart: a drained key leaves another one full', async () => {
    const drained = key('drained');
    const other = key('other');
    const [drainedAllowed, otherAllowed] = await Promise.all([
      takeConcurrently(stores, drained, 30),
      takeConcurrently(stores, other, 5),
    ]);
    expect([drainedAllowed, otherAllowed]).toEqual([5, 5]);
  });

  it('refills a drained bucket', async () => {
    const refilling = key('refill');
    const policy: BucketPolicy = { perSecond: 20, burst: 2 };
    while ((await stores[0].take(refilling, policy)).allowed);
    await eventually(
      async () => ((await stores[stores.length - 1].take(refilling, policy)).allowed ? true : undefined),
      10_000,
      'a token to come back',
    );
  });

  it('forgets only full buckets when pruned', async () => {
    const drained = key('pruned');
    await takeConcurrently(stores, drained, 5);
    await stores[0].prune();
    expect(await takeConcurrently(stores, drained, 3)).toBe(0);
  });
}

describe('MemoryRateLimitStore', () => {
  storeConformance(async () => ({ stores: [new MemoryRateLimitStore()], close: async () => undefined }));
});

describe('SqlRateLimitStore on PGlite', () => {
  storeConformance(async () => {
    const db = await openSqlDatabase('pglite://memory');
    return { stores: [await SqlRateLimitStore.open(db)], close: () => db.close() };
  });
});

describeWithService('postgres', 'SqlRateLimitStore on PostgreSQL, two processes sharing one table', (url) => {
  storeConformance(async () => {
    const schema = uniqueSchema('rate_limits');
    const dbs: SqlDatabase[] = [await openSqlDatabase(url, { schema }), await openSqlDatabase(url, { schema })];
    const stores = await Promise.all(dbs.map((db) => SqlRateLimitStore.open(db)));
    return {
      stores,
      close: async () => {
        await dbs[0].query(`drop schema ${schema} cascade`);
        await Promise.all(dbs.map((db) => db.close()));
      },
    };
  });
});
