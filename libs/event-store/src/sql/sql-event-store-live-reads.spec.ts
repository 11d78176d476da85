import { openSqlDatabase, type SqlDatabase } from '@paygate/sql';
import { eventually } from '@paygate/testing';
import { eachEvent, type EventSubscription, type RecordedEvent } from '../event-store';
import { SqlEventStore } from './sql-event-store';

/** A promise and the function that resolves it. */
function gate(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

describe.each(['pglite', 'sqlite'])('SqlEventStore on %s: live subscriptions of one process', (engine) => {
  let db: SqlDatabase;
  let reads = 0;
  let store: SqlEventStore;

  beforeAll(async () => {
    db = await openSqlDatabase(`${engine}://memory`);
    const counted = Object.assign(Object.create(db) as SqlDatabase, {
      queryAhead: (text: string, params?: unknown[]) => {
        reads++;
        return db.queryAhead(text, params);
      },
    });
    // Woken only by appends, and at once: every read here is one an append caused.
    store = await SqlEventStore.create(counted, { pollIntervalMs: 60_000, minReadIntervalMs: 0 });
  });
  afterAll(() => db.close());

  it('at the same position share the read an append wakes them for, and each gets every event once, in order', async () => {
    const seen: string[][] = Array.from({ length: 5 }, () => []);
    const subscriptions: EventSubscription[] = seen.map((events) =>
      store.subscribeToAll(
        { streamPrefixes: ['live-'] },
        eachEvent(async (event: RecordedEvent) => void events.push(`${event.streamName}:${event.type}`)),
      ),
    );
    try {
      await store.appendToStream('live-a', [{ type: 'First', data: {} }]);
      await eventually(
        () => (seen.every((events) => events.length === 1) ? true : undefined),
        15_000,
        'every subscription to see the first event',
      );

      const before = reads;
      await store.appendToStream('live-b', [{ type: 'Second', data: {} }]);
      await eventually(
        () => (seen.every((events) => events.length === 2) ? true : undefined),
        15_000,
        'every subscription to see the second event',
      );
      expect(reads - before).toBe(1);

      await store.appendToStream('live-a', [{ type: 'Third', data: {} }]);
      await store.appendToStream('live-c', [{ type: 'Fourth', data: {} }]);
      await eventually(
        () => (seen.every((events) => events.length === 4) ? true : undefined),
        15_000,
        'every subscription to see all four',
      );
      for (const events of seen)
        expect(events).toEqual(['live-a:First', 'live-b:Second', 'live-a:Third', 'live-c:Fourth']);
    } finally {
      await Promise.all(subscriptions.map((subscription) => subscription.stop()));
    }
  });

  it('behind the others take their page from what the others read, and miss no append made meanwhile', async () => {
    const fast: string[][] = [[], []];
    const slow: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const subscriptions = [
      ...fast.map((events) =>
        store.subscribeToAll(
          { streamPrefixes: ['behind-'] },
          eachEvent(async (event: RecordedEvent) => void events.push(event.type)),
        ),
      ),
      store.subscribeToAll(
        { streamPrefixes: ['behind-'] },
        eachEvent(async (event: RecordedEvent) => {
          slow.push(event.type);
          if (event.type === 'First') await gate;
        }),
      ),
    ];
    try {
      await store.appendToStream('behind-a', [{ type: 'First', data: {} }]);
      await eventually(
        () => (fast.every((events) => events.length === 1) && slow.length === 1 ? true : undefined),
        15_000,
        'all to see the first event',
      );

      // The slow one is still handling First while Second and Third are read by the others.
      const before = reads;
      await store.appendToStream('behind-b', [{ type: 'Second', data: {} }]);
      await eventually(
        () => (fast.every((events) => events.length === 2) ? true : undefined),
        15_000,
        'the fast ones to see the second event',
      );
      await store.appendToStream('behind-a', [{ type: 'Third', data: {} }]);
      await eventually(
        () => (fast.every((events) => events.length === 3) ? true : undefined),
        15_000,
        'the fast ones to see the third event',
      );
      const readsByTheFast = reads - before;
      release();
      await eventually(() => (slow.length === 3 ? true : undefined), 15_000, 'the slow one to catch up');
      expect(reads - before).toBe(readsByTheFast);

      // Appended while the slow one caught up from memory: its wait still counts it.
      await store.appendToStream('behind-c', [{ type: 'Fourth', data: {} }]);
      await eventually(
        () => (slow.length === 4 && fast.every((events) => events.length === 4) ? true : undefined),
        15_000,
        'all to see the fourth event',
      );
      for (const events of [...fast, slow]) expect(events).toEqual(['First', 'Second', 'Third', 'Fourth']);
    } finally {
      release();
      await Promise.all(subscriptions.map((subscription) => subscription.stop()));
    }
  });

  it('behind the others and handed the end of a full page read for them, read on rather than wait for an append', async () => {
    // Pages of two; no poll: only an append or a page known to be full makes a subscription read again.
    const paged = await SqlEventStore.create(db, { pollIntervalMs: 60_000, minReadIntervalMs: 0, pageSize: 2 });
    const gates = { ahead: gate(), behind: gate() };
    const seen = { ahead: [] as string[], behind: [] as string[] };
    const follow = (who: 'ahead' | 'behind', waitsAt: string) =>
      paged.subscribeToAll(
        { streamPrefixes: ['paged-'] },
        eachEvent(async (event: RecordedEvent) => {
          seen[who].push(event.type);
          if (event.type === waitsAt) await gates[who].promise;
        }),
      );
    const subscriptions = [follow('ahead', 'E4'), follow('behind', 'E1')];
    try {
      await paged.appendToStream(
        'paged-a',
        ['E1', 'E2', 'E3', 'E4', 'E5'].map((type) => ({ type, data: {} })),
      );
      // The one ahead read E3 and E4, a full page, and waits in E4; the one behind waits in E1.
      await eventually(
        () => (seen.ahead.length === 4 && seen.behind.length === 1 ? true : undefined),
        15_000,
        'both to reach their gates',
      );
      gates.behind.resolve();
      await eventually(
        () => (seen.behind.length === 5 ? true : undefined),
        15_000,
        'the one behind to read past the full page',
      );
      gates.ahead.resolve();
      await eventually(() => (seen.ahead.length === 5 ? true : undefined), 15_000, 'the one ahead to see E5');
      expect(seen).toEqual({ ahead: ['E1', 'E2', 'E3', 'E4', 'E5'], behind: ['E1', 'E2', 'E3', 'E4', 'E5'] });
    } finally {
      gates.ahead.resolve();
      gates.behind.resolve();
      await Promise.all(subscriptions.map((subscription) => subscription.stop()));
    }
  });
});
