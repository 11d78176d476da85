import { openSqlDatabase, type SqlDatabase } from '@paygate/sql';
import { eventually } from '@paygate/testing';
import { eachEvent, type EventSubscription, type RecordedEvent } from '../event-store';
import { SqlEventStore } from './sql-event-store';

describe('SqlEventStore: live subscriptions of one process', () => {
  let db: SqlDatabase;
  let reads = 0;
  let store: SqlEventStore;

  beforeAll(async () => {
    db = await openSqlDatabase('pglite://memory');
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
      await eventually(() => (seen.every((events) => events.length === 1) ? true : undefined), 15_000, 'every subscription to see the first event');

      const before = reads;
      await store.appendToStream('live-b', [{ type: 'Second', data: {} }]);
      await eventually(() => (seen.every((events) => events.length === 2) ? true : undefined), 15_000, 'every subscription to see the second event');
      expect(reads - before).toBe(1);

      await store.appendToStream('live-a', [{ type: 'Third', data: {} }]);
      await store.appendToStream('live-c', [{ type: 'Fourth', data: {} }]);
      await eventually(() => (seen.every((events) => events.length === 4) ? true : undefined), 15_000, 'every subscription to see all four');
      for (const events of seen) expect(events).toEqual(['live-a:First', 'live-b:Second', 'live-a:Third', 'live-c:Fourth']);
    } finally {
      await Promise.all(subscriptions.map((subscription) => subscription.stop()));
    }
  });
});
