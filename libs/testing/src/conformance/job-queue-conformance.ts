import type { JobQueue } from '@paygate/jobs';
import type { SqlDatabase } from '@paygate/sql';

export interface JobQueueUnderTest {
  db: SqlDatabase;
  /** A queue of that name on `db`, its table migrated. */
  queue(name: string): JobQueue<{ n: number }>;
  close(): Promise<void>;
}

const past = (ms = 1_000) => new Date(Date.now() - ms);
const future = (ms = 3_600_000) => new Date(Date.now() + ms);

/** The behaviour every job queue adapter (PGlite, SQLite, PostgreSQL) must show. */
export function jobQueueConformance(setup: () => Promise<JobQueueUnderTest>): void {
  let subject: JobQueueUnderTest;
  let queue: JobQueue<{ n: number }>;
  let db: SqlDatabase;
  let round = 0;

  beforeAll(async () => {
    subject = await setup();
    db = subject.db;
  });
  afterAll(() => subject?.close());
  beforeEach(() => {
    queue = subject.queue(`conformance-${++round}`);
  });

  const keysOf = (jobs: { key: string }[]) => jobs.map((job) => job.key).sort();

  describe('scheduling', () => {
    it('keeps one job per key: the same key scheduled twice runs once, with what it was first scheduled with', async () => {
      await queue.schedule(db, [{ key: 'a', runAt: past(), payload: { n: 1 } }]);
      await queue.schedule(db, [{ key: 'a', runAt: past(), payload: { n: 2 } }]);

      const claimed = await queue.claim(db, { limit: 10 });
      expect(claimed).toEqual([expect.objectContaining({ key: 'a', payload: { n: 1 }, attempts: 1 })]);
    });

    it('moves a job to its new time and payload when asked to replace it', async () => {
      await queue.schedule(db, [{ key: 'a', runAt: past(), payload: { n: 1 } }]);
      await queue.schedule(db, [{ key: 'a', runAt: future(), payload: { n: 2 } }], { replace: true });
      expect(await queue.claim(db, { limit: 10 })).toEqual([]);

      await queue.schedule(db, [{ key: 'a', runAt: past(), payload: { n: 3 } }], { replace: true });
      expect(await queue.claim(db, { limit: 10 })).toEqual([expect.objectContaining({ key: 'a', payload: { n: 3 } })]);
    });

    it('forgets a cancelled job', async () => {
      await queue.schedule(db, [
        { key: 'a', runAt: past() },
        { key: 'b', runAt: past() },
      ]);
      await queue.cancel(db, ['a']);
      expect(keysOf(await queue.claim(db, { limit: 10 }))).toEqual(['b']);
    });

    it('brings a waiting job forward, never back, and leaves a job under a lease to its claim', async () => {
      await queue.schedule(db, [
        { key: 'waiting', runAt: future() },
        { key: 'soon', runAt: past(1_000) },
        { key: 'running', runAt: past(5_000) },
      ]);
      const [running] = await queue.claim(db, { limit: 1 });
      expect(running.key).toBe('running');
      await queue.advance(db, [
        { key: 'waiting', at: past() },
        { key: 'soon', at: future() },
        { key: running.key, at: past() },
      ]);
      expect(keysOf(await queue.claim(db, { limit: 10 }))).toEqual(['soon', 'waiting']);
    });

    it('keeps queues apart: a job of one queue is never claimed from another', async () => {
      const other = subject.queue(`conformance-other-${round}`);
      await other.schedule(db, [{ key: 'a', runAt: past() }]);
      expect(await queue.claim(db, { limit: 10 })).toEqual([]);
      expect(keysOf(await other.claim(db, { limit: 10 }))).toEqual(['a']);
    });

    it('schedules in the caller transaction: a rolled-back schedule leaves no job', async () => {
      await expect(
        db.transaction(async (tx) => {
          await queue.schedule(tx, [{ key: 'a', runAt: past() }]);
          throw new Error('the event was not applied');
        }),
      ).rejects.toThrow('the event was not applied');
      expect(await queue.claim(db, { limit: 10 })).toEqual([]);
    });
  });

  describe('claiming', () => {
    it('claims due jobs only, the longest due first, up to the limit', async () => {
      await queue.schedule(db, [
        { key: 'later', runAt: future() },
        { key: 'newer', runAt: past(1_000) },
        { key: 'older', runAt: past(5_000) },
      ]);
      expect((await queue.claim(db, { limit: 1 })).map((job) => job.key)).toEqual(['older']);
      expect((await queue.claim(db, { limit: 10 })).map((job) => job.key)).toEqual(['newer']);
    });

    it('does not hand out a job twice while its lease lasts, and hands it out again once the lease ran out', async () => {
      await queue.schedule(db, [{ key: 'a', runAt: past() }]);
      const [first] = await queue.claim(db, { limit: 10, leaseMs: -1_000 });
      expect(first).toEqual(expect.objectContaining({ key: 'a', attempts: 1 }));

      const [again] = await queue.claim(db, { limit: 10 });
      expect(again).toEqual(expect.objectContaining({ key: 'a', attempts: 2 }));
      expect(await queue.claim(db, { limit: 10 })).toEqual([]);
    });

    it('never hands the same job to two claims running together', async () => {
      await queue.schedule(
        db,
        Array.from({ length: 100 }, (_, n) => ({ key: `job-${n}`, runAt: past(n) })),
      );
      const claims = await Promise.all(Array.from({ length: 5 }, () => queue.claim(db, { limit: 30 })));
      const keys = claims.flat().map((job) => job.key);
      expect(new Set(keys).size).toBe(keys.length);
      expect(keys.length).toBe(100);
    });
  });

  describe('settling', () => {
    it('forgets a completed job', async () => {
      await queue.schedule(db, [{ key: 'a', runAt: past() }]);
      const claimed = await queue.claim(db, { limit: 10, leaseMs: -1_000 });
      await queue.complete(db, claimed);
      expect(await queue.claim(db, { limit: 10 })).toEqual([]);
    });

    it('keeps a job that was claimed again after the lease ran out: the late completion changes nothing', async () => {
      await queue.schedule(db, [{ key: 'a', runAt: past() }]);
      const late = await queue.claim(db, { limit: 10, leaseMs: -1_000 });
      const current = await queue.claim(db, { limit: 10, leaseMs: -2_000 });
      await queue.complete(db, late);
      await queue.retryLater(db, [{ job: late[0], at: future() }]);

      expect(await queue.claim(db, { limit: 10 })).toEqual([expect.objectContaining({ key: 'a', attempts: 3 })]);
      expect(current).toHaveLength(1);
    });

    it('keeps a job re-scheduled while it was running', async () => {
      await queue.schedule(db, [{ key: 'a', runAt: past() }]);
      const claimed = await queue.claim(db, { limit: 10 });
      await queue.schedule(db, [{ key: 'a', runAt: past(), payload: { n: 2 } }], { replace: true });
      await queue.complete(db, claimed);

      expect(await queue.claim(db, { limit: 10 })).toEqual([
        expect.objectContaining({ key: 'a', payload: { n: 2 }, attempts: 1 }),
      ]);
    });

    it('runs a job again at the time a retry asks for, counting its attempts', async () => {
      const dueAt = past(10_000);
      await queue.schedule(db, [{ key: 'a', runAt: dueAt }]);
      const [first] = await queue.claim(db, { limit: 10 });
      await queue.retryLater(db, [{ job: first, at: future() }]);
      expect(await queue.claim(db, { limit: 10 })).toEqual([]);

      await queue.schedule(db, [{ key: 'b', runAt: past() }]);
      const [second] = await queue.claim(db, { limit: 10 });
      await queue.retryLater(db, [{ job: second, at: past() }]);
      expect(await queue.claim(db, { limit: 10 })).toEqual([expect.objectContaining({ key: 'b', attempts: 2 })]);
    });

    it('keeps the time a job was first due across its retries', async () => {
      const dueAt = new Date(Date.now() - 10_000);
      await queue.schedule(db, [{ key: 'a', runAt: dueAt }]);
      const [first] = await queue.claim(db, { limit: 10 });
      await queue.retryLater(db, [{ job: first, at: past() }]);
      const [second] = await queue.claim(db, { limit: 10 });
      expect(second.dueAt).toEqual(dueAt);
    });

    it('backs a retry with no time of its own off into the future', async () => {
      await queue.schedule(db, [{ key: 'a', runAt: past() }]);
      const claimed = await queue.claim(db, { limit: 10 });
      await queue.retryLater(db, [{ job: claimed[0] }]);
      expect(await queue.claim(db, { limit: 10 })).toEqual([]);
    });

    it('settles many jobs at once, each by its own verdict', async () => {
      await queue.schedule(
        db,
        Array.from({ length: 6 }, (_, n) => ({ key: `job-${n}`, runAt: past() })),
      );
      const claimed = await queue.claim(db, { limit: 10 });
      await db.transaction(async (tx) => {
        await queue.complete(tx, claimed.slice(0, 3));
        await queue.retryLater(
          tx,
          claimed.slice(3).map((job) => ({ job, at: past() })),
        );
      });
      expect(keysOf(await queue.claim(db, { limit: 10 }))).toEqual(keysOf(claimed.slice(3)));
    });
  });

  describe('lanes', () => {
    it('keeps each lane to its cap of jobs in flight, across claims', async () => {
      await queue.schedule(db, [
        ...Array.from({ length: 5 }, (_, n) => ({ key: `a-${n}`, lane: 'a.example', runAt: past(100 - n) })),
        ...Array.from({ length: 5 }, (_, n) => ({ key: `b-${n}`, lane: 'b.example', runAt: past(100 - n) })),
      ]);
      const first = await queue.claim(db, { limit: 10, laneCap: 2 });
      expect(keysOf(first)).toEqual(['a-0', 'a-1', 'b-0', 'b-1']);
      expect(await queue.claim(db, { limit: 10, laneCap: 2 })).toEqual([]);

      await queue.complete(
        db,
        first.filter((job) => job.key === 'a-0'),
      );
      expect(keysOf(await queue.claim(db, { limit: 10, laneCap: 2 }))).toEqual(['a-2']);
    });

    it('serves another lane while one lane with a long backlog is at its cap', async () => {
      await queue.schedule(db, [
        ...Array.from({ length: 50 }, (_, n) => ({ key: `slow-${n}`, lane: 'slow.example', runAt: past(10_000 - n) })),
        { key: 'fast-0', lane: 'fast.example', runAt: past(1) },
      ]);
      expect(keysOf(await queue.claim(db, { limit: 2, laneCap: 1 }))).toEqual(['slow-0']);
      expect(keysOf(await queue.claim(db, { limit: 2, laneCap: 1 }))).toEqual(['fast-0']);
    });

    it('counts a lane free again once its leases ran out', async () => {
      await queue.schedule(db, [
        { key: 'a-0', lane: 'a.example', runAt: past(2) },
        { key: 'a-1', lane: 'a.example', runAt: past(1) },
      ]);
      expect(keysOf(await queue.claim(db, { limit: 10, laneCap: 1, leaseMs: -1_000 }))).toEqual(['a-0']);
      expect(keysOf(await queue.claim(db, { limit: 10, laneCap: 1 }))).toEqual(['a-0']);
    });
  });
}
