import { randomUUID } from 'node:crypto';
import { eachEvent, WrongExpectedRevisionError, type EventStore, type RecordedEvent } from '@paygate/event-store';
import { eventually } from '../scenarios/wait';

export interface EventStoreUnderTest {
  store: EventStore;
  /** Releases whatever the factory opened. */
  dispose(): Promise<void>;
}

/**
 * The behaviour every EventStore adapter must show. Each test works in streams under its own
 * random prefix, so the suite also runs against a shared server that already holds events.
 */
export function eventStoreConformance(open: () => Promise<EventStoreUnderTest>): void {
  let subject: EventStoreUnderTest;
  let store: EventStore;
  let prefix: string;
  const stream = (name: string) => `${prefix}${name}`;
  const event = (type: string, data: Record<string, unknown> = {}) => ({ id: randomUUID(), type, data });

  beforeAll(async () => {
    subject = await open();
    store = subject.store;
  });
  afterAll(() => subject?.dispose());
  beforeEach(() => {
    prefix = `t${randomUUID().replace(/-/g, '').slice(0, 12)}-`;
  });

  describe('appending and reading a stream', () => {
    it('numbers a new stream from revision 0 and reads events back as written', async () => {
      const written = [event('Opened', { amount: 1500, note: 'ü€' }), event('Noted', { nested: { list: [1, 2] } })];
      const result = await store.appendToStream(stream('a'), written, { expectedRevision: 'no_stream' });
      expect(result.nextExpectedRevision).toBe(1);

      const read = await store.readStream(stream('a'));
      expect(read.map((e) => [e.id, e.type, e.revision, e.streamName, e.data])).toEqual([
        [written[0].id, 'Opened', 0, stream('a'), { amount: 1500, note: 'ü€' }],
        [written[1].id, 'Noted', 1, stream('a'), { nested: { list: [1, 2] } }],
      ]);
      expect(Number.isNaN(Date.parse(read[0].recordedAt))).toBe(false);
    });

    it('keeps metadata beside the data', async () => {
      await store.appendToStream(stream('m'), [{ type: 'X', data: {}, metadata: { correlationId: 'c-1' } }]);
      const [read] = await store.readStream(stream('m'));
      expect(read.metadata).toMatchObject({ correlationId: 'c-1' });
      expect(read.id).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('reads the events at given places, leaving out places that hold none', async () => {
      const [a, b, c] = [event('A'), event('B'), event('C')];
      await store.appendToStream(stream('p1'), [a, b]);
      await store.appendToStream(stream('p2'), [c]);
      const read = await store.readAt([
        { streamName: stream('p1'), revision: 1 },
        { streamName: stream('p2'), revision: 0 },
        { streamName: stream('p2'), revision: 1 },
        { streamName: stream('absent'), revision: 0 },
      ]);
      expect(read.map((e) => [e.id, e.streamName, e.revision]).sort()).toEqual(
        [
          [b.id, stream('p1'), 1],
          [c.id, stream('p2'), 0],
        ].sort(),
      );
      expect(await store.readAt([])).toEqual([]);
    });

    it('reads an absent stream as empty and can start from a revision', async () => {
      expect(await store.readStream(stream('none'))).toEqual([]);
      await store.appendToStream(stream('r'), [event('A'), event('B'), event('C')]);
      expect((await store.readStream(stream('r'), { fromRevision: 1 })).map((e) => e.type)).toEqual(['B', 'C']);
      expect((await store.readStream(stream('r'), { fromRevision: 1, maxCount: 1 })).map((e) => e.type)).toEqual(['B']);
      // Past the last event: nothing yet, not an error (a runtime catching up with a stream it keeps).
      expect(await store.readStream(stream('r'), { fromRevision: 3 })).toEqual([]);
    });

    it('appends at the exact expected revision and continues numbering', async () => {
      await store.appendToStream(stream('e'), [event('A')], { expectedRevision: 'no_stream' });
      const result = await store.appendToStream(stream('e'), [event('B'), event('C')], { expectedRevision: 0 });
      expect(result.nextExpectedRevision).toBe(2);
      expect((await store.readStream(stream('e'))).map((e) => e.revision)).toEqual([0, 1, 2]);
    });

    it('accepts any revision when asked to, on new and existing streams', async () => {
      await store.appendToStream(stream('any'), [event('A')], { expectedRevision: 'any' });
      const result = await store.appendToStream(stream('any'), [event('B')], { expectedRevision: 'any' });
      expect(result.nextExpectedRevision).toBe(1);
    });
  });

  describe('optimistic concurrency', () => {
    it('rejects no_stream on an existing stream with a typed conflict and writes nothing', async () => {
      await store.appendToStream(stream('c'), [event('A')]);
      const error = await store
        .appendToStream(stream('c'), [event('B'), event('C')], { expectedRevision: 'no_stream' })
        .catch((e) => e);
      expect(error).toBeInstanceOf(WrongExpectedRevisionError);
      expect(error).toMatchObject({ streamName: stream('c'), expected: 'no_stream', actual: 0 });
      expect((await store.readStream(stream('c'))).map((e) => e.type)).toEqual(['A']);
    });

    it('rejects a stale exact revision and writes none of the batch', async () => {
      await store.appendToStream(stream('s'), [event('A'), event('B')]);
      const error = await store
        .appendToStream(stream('s'), [event('X'), event('Y'), event('Z')], { expectedRevision: 0 })
        .catch((e) => e);
      expect(error).toBeInstanceOf(WrongExpectedRevisionError);
      expect(error).toMatchObject({ expected: 0, actual: 1 });
      expect((await store.readStream(stream('s'))).map((e) => e.type)).toEqual(['A', 'B']);
    });

    it('rejects an exact revision or stream_exists on a stream that does not exist', async () => {
      await expect(store.appendToStream(stream('n'), [event('A')], { expectedRevision: 0 })).rejects.toMatchObject({
        actual: 'no_stream',
      });
      await expect(
        store.appendToStream(stream('n'), [event('A')], { expectedRevision: 'stream_exists' }),
      ).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      expect(await store.readStream(stream('n'))).toEqual([]);
    });

    it('lets exactly one of two racing writers with the same expected revision win', async () => {
      await store.appendToStream(stream('race'), [event('A')]);
      const outcomes = await Promise.allSettled(
        Array.from({ length: 5 }, (_, i) =>
          store.appendToStream(stream('race'), [event(`W${i}`)], { expectedRevision: 0 }),
        ),
      );
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      for (const o of outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected')) {
        expect(o.reason).toBeInstanceOf(WrongExpectedRevisionError);
      }
      expect(await store.readStream(stream('race'))).toHaveLength(2);
    });
  });

  describe('reading all events', () => {
    it('reads across streams in append order, after a position, filtered by stream prefix', async () => {
      const first = await store.appendToStream(stream('x-1'), [event('A')]);
      await store.appendToStream(stream('y-1'), [event('B')]);
      await store.appendToStream(stream('x-2'), [event('C'), event('D')]);

      const all = await store.readAll({ streamPrefixes: [prefix], maxCount: 100 });
      expect(all.map((e) => e.type)).toEqual(['A', 'B', 'C', 'D']);
      const afterFirst = await store.readAll({ after: first.position, streamPrefixes: [prefix] });
      expect(afterFirst.map((e) => e.type)).toEqual(['B', 'C', 'D']);
      const onlyX = await store.readAll({ streamPrefixes: [stream('x-')] });
      expect(onlyX.map((e) => e.type)).toEqual(['A', 'C', 'D']);
      const limited = await store.readAll({ streamPrefixes: [prefix], maxCount: 2 });
      expect(limited.map((e) => e.type)).toEqual(['A', 'B']);
      expect(all[0].position).toBe(first.position);
    });
  });

  describe('subscribing to all events', () => {
    /** A subscription to the suite's streams that keeps every event it is delivered in `seen`. */
    const subscribeKeepingAll = () => {
      const seen: RecordedEvent[] = [];
      const subscription = store.subscribeToAll(
        { streamPrefixes: [prefix] },
        eachEvent(async (e) => {
          seen.push(e);
        }),
      );
      return { seen, subscription };
    };

    it('catches up, then follows live events', async () => {
      await store.appendToStream(stream('sub'), [event('Old')]);
      const { seen, subscription } = subscribeKeepingAll();
      try {
        await eventually(() => (seen.length === 1 ? true : undefined), 10_000, 'catch-up');
        await store.appendToStream(stream('sub'), [event('New')]);
        await eventually(() => (seen.length === 2 ? true : undefined), 10_000, 'live event');
        expect(seen.map((e) => e.type)).toEqual(['Old', 'New']);
      } finally {
        await subscription.stop();
      }
    });

    it('resumes after a checkpoint without repeating or skipping', async () => {
      await store.appendToStream(stream('cp'), [event('A'), event('B')]);
      const seen: string[] = [];
      let checkpoint: string | null = null;
      const first = store.subscribeToAll(
        { streamPrefixes: [prefix] },
        eachEvent(async (e) => {
          seen.push(e.type);
          checkpoint = e.position;
        }),
      );
      await eventually(() => (seen.length === 2 ? true : undefined), 10_000, 'first two');
      await first.stop();
      await store.appendToStream(stream('cp'), [event('C')]);

      const resumed = store.subscribeToAll(
        { after: checkpoint, streamPrefixes: [prefix] },
        eachEvent(async (e) => {
          seen.push(e.type);
        }),
      );
      try {
        await eventually(() => (seen.length >= 3 ? true : undefined), 10_000, 'resumed event');
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(seen).toEqual(['A', 'B', 'C']);
      } finally {
        await resumed.stop();
      }
    });

    it('ends with the handler error when a handler throws', async () => {
      await store.appendToStream(stream('boom'), [event('A'), event('B')]);
      const handled: string[] = [];
      const subscription = store.subscribeToAll(
        { streamPrefixes: [prefix] },
        eachEvent(async (e) => {
          handled.push(e.type);
          throw new Error('handler failed');
        }),
      );
      await expect(subscription.ended).rejects.toThrow('handler failed');
      expect(handled).toEqual(['A']);
    });

    it('delivers events while writers keep appending, not only once they stop', async () => {
      // Writers append back to back until the subscriber has seen `wanted` events, or until
      // each has made `bound` appends. A subscription that is only scheduled once the writers
      // pause (a starved read or wake-up) sees nothing before the bound stops them. Counts,
      // not timings: the bound is far more appends than a working subscription needs.
      const writers = 8;
      const wanted = 20;
      const bound = 400;
      let writing = true;
      let seenWhileWriting = 0;
      let appended = 0;
      const subscription = store.subscribeToAll(
        { streamPrefixes: [prefix] },
        eachEvent(async () => {
          if (!writing) return;
          seenWhileWriting++;
          if (seenWhileWriting >= wanted) writing = false;
        }),
      );
      try {
        await Promise.all(
          Array.from({ length: writers }, async (_, writer) => {
            for (let i = 0; i < bound && writing; i++) {
              await store.appendToStream(stream(`busy-${writer}-${i % 5}`), [event('Written', { writer, i })]);
              appended++;
            }
          }),
        );
        const stoppedBySubscriber = !writing;
        writing = false;
        expect({ seenWhileWriting, stoppedBySubscriber }).toEqual({
          seenWhileWriting: wanted,
          stoppedBySubscriber: true,
        });
        expect(appended).toBeLessThan(writers * bound);
      } finally {
        writing = false;
        await subscription.stop();
      }
    });

    it('delivers every event of concurrent writers exactly once, in one order that agrees with each stream', async () => {
      const writers = 8;
      const appendsPerWriter = 25;
      const { seen, subscription } = subscribeKeepingAll();
      try {
        // Writers share streams, so appends also contend on the same stream rows.
        await Promise.all(
          Array.from({ length: writers }, async (_, writer) => {
            for (let i = 0; i < appendsPerWriter; i++) {
              const size = 1 + (i % 3);
              await store.appendToStream(
                stream(`conc-${(writer + i) % 5}`),
                Array.from({ length: size }, (_, k) => event('Written', { writer, i, k })),
              );
            }
          }),
        );
        const expectedCount =
          writers * Array.from({ length: appendsPerWriter }, (_, i) => 1 + (i % 3)).reduce((a, b) => a + b, 0);
        await eventually(() => (seen.length >= expectedCount ? true : undefined), 30_000, `${expectedCount} events`);
        await new Promise((resolve) => setTimeout(resolve, 200));

        expect(seen).toHaveLength(expectedCount);
        expect(new Set(seen.map((e) => e.id)).size).toBe(expectedCount);
        const lastRevision = new Map<string, number>();
        for (const e of seen) {
          expect(e.revision).toBe((lastRevision.get(e.streamName) ?? -1) + 1);
          lastRevision.set(e.streamName, e.revision);
        }
        const readBack = await store.readAll({ streamPrefixes: [prefix], maxCount: expectedCount + 10 });
        expect(readBack.map((e) => e.id)).toEqual(seen.map((e) => e.id));
      } finally {
        await subscription.stop();
      }
    });
  });

  it('answers ping', async () => {
    await expect(store.ping()).resolves.toBeUndefined();
  });
}
