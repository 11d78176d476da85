import { openSqlDatabase, type SqlDatabase } from '@paygate/sql';
import { DeciderRuntime } from './decider-runtime';
import type { EventStore } from './event-store';
import { SqlEventStore } from './sql/sql-event-store';
import { counter, LimitExceeded, type Counter, type CounterCommand, type CounterEvent } from './counter-test-setup';

describe('DeciderRuntime (PGlite)', () => {
  let sql: SqlDatabase;
  let store: EventStore;
  let runtime: DeciderRuntime<CounterCommand, CounterEvent, Counter>;
  let id = 0;
  const next = () => `c${id++}`;

  beforeAll(async () => {
    sql = await openSqlDatabase('pglite://memory');
    store = await SqlEventStore.create(sql);
    runtime = new DeciderRuntime(store, counter);
  });
  afterAll(async () => {
    await store.close();
    await sql.close();
  });

  it('appends what decide returns, with the schema version, and returns the state after it', async () => {
    const ref = next();
    await runtime.handle(ref, { type: 'Open', limit: 10 }, { expectNew: true });
    const handled = await runtime.handle(ref, { type: 'Add', amount: 4 });
    expect(handled).toMatchObject({
      state: { limit: 10, total: 4 },
      events: [{ type: 'Added', data: { amount: 4 } }],
      revision: 1,
    });
    const stored = await store.readStream(`counter-${ref}`);
    expect(stored.map((event) => [event.type, event.metadata.schemaVersion])).toEqual([
      ['Opened', 2],
      ['Added', 2],
    ]);
  });

  it('writes nothing when decide returns no events, and passes a rejection on untouched', async () => {
    const ref = next();
    await runtime.handle(ref, { type: 'Open', limit: 5 });
    expect(await runtime.handle(ref, { type: 'Add', amount: 0 })).toMatchObject({
      state: { limit: 5, total: 0 },
      events: [],
      revision: 0,
    });
    await expect(runtime.handle(ref, { type: 'Add', amount: 6 })).rejects.toBeInstanceOf(LimitExceeded);
    expect(await store.readStream(`counter-${ref}`)).toHaveLength(1);
  });

  it('runs commands on one stream one after another with oneCommandAtATime: thirty at once, none conflicts', async () => {
    const ref = next();
    // One attempt: a command that met another writer would fail at once.
    const serial = new DeciderRuntime(store, counter, { maxAttempts: 1, oneCommandAtATime: true });
    await serial.handle(ref, { type: 'Open', limit: 100 });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 30 }, () => serial.handle(ref, { type: 'Add', amount: 1 })),
    );
    expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toEqual([]);
    expect((await serial.handle(ref, { type: 'Add', amount: 0 })).state).toMatchObject({ total: 30 });
    // A refusal does not stop the commands queued behind it.
    const [refused, after] = await Promise.allSettled([
      serial.handle(ref, { type: 'Add', amount: 1_000 }),
      serial.handle(ref, { type: 'Add', amount: 1 }),
    ]);
    expect(refused.status).toBe('rejected');
    expect(after).toMatchObject({ status: 'fulfilled', value: { state: { total: 31 } } });
  });

  it('decides again against the latest state when writers race, so the invariant holds', async () => {
    const ref = next();
    await runtime.handle(ref, { type: 'Open', limit: 3 });
    const racers = await Promise.allSettled(
      Array.from({ length: 5 }, () =>
        new DeciderRuntime(store, counter, { maxAttempts: 10 }).handle(ref, { type: 'Add', amount: 1 }),
      ),
    );
    expect(racers.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(3);
    expect(
      racers
        .filter((outcome) => outcome.status === 'rejected')
        .every((outcome) => (outcome as PromiseRejectedResult).reason instanceof LimitExceeded),
    ).toBe(true);
    expect((await runtime.load(ref)).state).toEqual({ limit: 3, total: 3 });
  });

  it('falls back to the normal loop when a stream expected to be new exists', async () => {
    const ref = next();
    await runtime.handle(ref, { type: 'Open', limit: 7 });
    expect(await runtime.handle(ref, { type: 'Open', limit: 9 }, { expectNew: true })).toMatchObject({
      state: { limit: 7, total: 0 },
      events: [],
    });
  });

  it('decides against the stream as the last command left it, and against the stored one when another writer moved it on', async () => {
    const ref = next();
    const opened = await runtime.handle(ref, { type: 'Open', limit: 5 }, { expectNew: true });
    const added = await runtime.handle(ref, { type: 'Add', amount: 2 }, { current: opened });
    expect(added).toMatchObject({ state: { limit: 5, total: 2 }, revision: 1 });
    await runtime.handle(ref, { type: 'Add', amount: 2 });
    // `added` is behind now: from it, 3 more would fit; from the stream, they do not.
    await expect(runtime.handle(ref, { type: 'Add', amount: 3 }, { current: added })).rejects.toBeInstanceOf(
      LimitExceeded,
    );
    expect(await runtime.handle(ref, { type: 'Add', amount: 1 }, { current: added })).toMatchObject({
      state: { limit: 5, total: 5 },
      revision: 4,
    });
  });

  it('appends published events in the same write, and never folds them', async () => {
    const ref = next();
    await runtime.handle(ref, { type: 'Open', limit: 2 });
    await runtime.handle(ref, { type: 'Add', amount: 2 });
    const stored = await store.readStream(`counter-${ref}`);
    expect(stored.map((event) => [event.type, event.revision, event.metadata.schemaVersion])).toEqual([
      ['Opened', 0, 2],
      ['Added', 1, 2],
      ['counters.CounterFull', 2, 1],
    ]);
    const loaded = await runtime.load(ref);
    expect(loaded).toEqual({
      state: { limit: 2, total: 2 },
      events: [
        { type: 'Opened', data: { limit: 2 } },
        { type: 'Added', data: { amount: 2 } },
      ],
      revision: 2,
    });
  });

  it('reads older schema versions through the decider', async () => {
    const ref = next();
    await store.appendToStream(`counter-${ref}`, [
      { type: 'Opened', data: { limit: 50 }, metadata: { schemaVersion: 2 } },
      { type: 'Added', data: { value: 8 }, metadata: { schemaVersion: 1 } },
    ]);
    expect((await runtime.load(ref)).state).toEqual({ limit: 50, total: 8 });
  });
});

describe('DeciderRuntime: streams kept between commands (cachedStreams)', () => {
  let sql: SqlDatabase;
  let store: EventStore;
  /** Events each runtime's reads returned, by stream. */
  let eventsRead: Map<string, number>;
  let counting: EventStore;

  beforeAll(async () => {
    sql = await openSqlDatabase('pglite://memory');
    store = await SqlEventStore.create(sql);
    counting = Object.create(store) as EventStore;
    counting.readStream = async (streamName, options) => {
      const read = await store.readStream(streamName, options);
      eventsRead.set(streamName, (eventsRead.get(streamName) ?? 0) + read.length);
      return read;
    };
  });
  beforeEach(() => (eventsRead = new Map()));
  afterAll(async () => {
    await store.close();
    await sql.close();
  });

  it('reads only what was appended since its last command, where a runtime without it reads the whole stream each time', async () => {
    const kept = new DeciderRuntime(counting, counter, { cachedStreams: 10 });
    await kept.handle('k1', { type: 'Open', limit: 1_000 });
    for (let i = 0; i < 20; i++) await kept.handle('k1', { type: 'Add', amount: 1 });
    expect(eventsRead.get('counter-k1') ?? 0).toBe(0);
    expect((await kept.load('k1')).state).toEqual({ limit: 1_000, total: 20 });

    eventsRead.clear();
    const whole = new DeciderRuntime(counting, counter);
    for (let i = 0; i < 5; i++) await whole.handle('k1', { type: 'Add', amount: 1 });
    expect(eventsRead.get('counter-k1')).toBe(21 + 22 + 23 + 24 + 25);
  });

  it('catches up with what another writer appended before deciding', async () => {
    const kept = new DeciderRuntime(counting, counter, { cachedStreams: 10 });
    const other = new DeciderRuntime(store, counter);
    await kept.handle('k2', { type: 'Open', limit: 5 });
    await kept.handle('k2', { type: 'Add', amount: 2 });
    await other.handle('k2', { type: 'Add', amount: 2 });

    await expect(kept.handle('k2', { type: 'Add', amount: 2 })).rejects.toBeInstanceOf(LimitExceeded);
    expect(eventsRead.get('counter-k2')).toBe(1);
    // Revision 4: the counter, full, also published CounterFull.
    expect(await kept.handle('k2', { type: 'Add', amount: 1 })).toMatchObject({
      state: { limit: 5, total: 5 },
      revision: 4,
    });
  });

  it('keeps the streams used last: one dropped is read whole again, and decided right', async () => {
    const kept = new DeciderRuntime(counting, counter, { cachedStreams: 2 });
    for (const id of ['k3', 'k4', 'k5']) {
      await kept.handle(id, { type: 'Open', limit: 10 });
      await kept.handle(id, { type: 'Add', amount: 1 });
    }
    eventsRead.clear();
    await kept.handle('k5', { type: 'Add', amount: 1 });
    await kept.handle('k3', { type: 'Add', amount: 1 });
    expect(Object.fromEntries(eventsRead)).toEqual({ 'counter-k5': 0, 'counter-k3': 2 });
    expect((await kept.load('k3')).state).toEqual({ limit: 10, total: 2 });
  });
});
