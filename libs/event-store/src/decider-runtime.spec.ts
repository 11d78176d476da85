import type { StreamDecider } from '@paygate/decider';
import { openSqlDatabase, type SqlDatabase } from '@paygate/sql';
import { DeciderRuntime } from './decider-runtime';
import type { EventStore } from './event-store';
import { SqlEventStore } from './sql/sql-event-store';

/** A counter that never goes above its limit: small enough to show every path of the runtime. */
type CounterCommand = { type: 'Add'; amount: number } | { type: 'Open'; limit: number };
type CounterEvent = { type: 'Opened'; data: { limit: number } } | { type: 'Added'; data: { amount: number } };
type Counter = { limit: number; total: number } | null;

class LimitExceeded extends Error {}

const counter: StreamDecider<CounterCommand, CounterEvent, Counter> = {
  initialState: null,
  streamName: (id) => `counter-${id}`,
  schemaVersion: 2,
  decide(command, state) {
    if (command.type === 'Open') return state ? [] : [{ type: 'Opened', data: { limit: command.limit } }];
    if (!state) throw new Error('no such counter');
    if (state.total + command.amount > state.limit) throw new LimitExceeded(`total would pass ${state.limit}`);
    return command.amount === 0 ? [] : [{ type: 'Added', data: { amount: command.amount } }];
  },
  evolve(state, event) {
    if (event.type === 'Opened') return { limit: event.data.limit, total: 0 };
    return state && { ...state, total: state.total + event.data.amount };
  },
  read({ type, data, schemaVersion }) {
    if (type !== 'Opened' && type !== 'Added') return undefined;
    if (schemaVersion === 1 && type === 'Added') return { type, data: { amount: Number(data.value) } }; // an older shape, upcast
    const event: { type: string; data: object } = { type, data };
    return event as CounterEvent;
  },
  publish(events, after) {
    return events.some((event) => event.type === 'Added') && after?.total === after?.limit
      ? [{ type: 'counters.CounterFull', version: 1, data: { total: after?.total } }]
      : [];
  },
};

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
    expect(handled).toEqual({ state: { limit: 10, total: 4 }, events: [{ type: 'Added', data: { amount: 4 } }] });
    const stored = await store.readStream(`counter-${ref}`);
    expect(stored.map((event) => [event.type, event.metadata.schemaVersion])).toEqual([
      ['Opened', 2],
      ['Added', 2],
    ]);
  });

  it('writes nothing when decide returns no events, and passes a rejection on untouched', async () => {
    const ref = next();
    await runtime.handle(ref, { type: 'Open', limit: 5 });
    expect(await runtime.handle(ref, { type: 'Add', amount: 0 })).toEqual({ state: { limit: 5, total: 0 }, events: [] });
    await expect(runtime.handle(ref, { type: 'Add', amount: 6 })).rejects.toBeInstanceOf(LimitExceeded);
    expect(await store.readStream(`counter-${ref}`)).toHaveLength(1);
  });

  it('decides again against the latest state when writers race, so the invariant holds', async () => {
    const ref = next();
    await runtime.handle(ref, { type: 'Open', limit: 3 });
    const racers = await Promise.allSettled(
      Array.from({ length: 5 }, () => new DeciderRuntime(store, counter, { maxAttempts: 10 }).handle(ref, { type: 'Add', amount: 1 })),
    );
    expect(racers.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(3);
    expect(
      racers.filter((outcome) => outcome.status === 'rejected').every((outcome) => (outcome as PromiseRejectedResult).reason instanceof LimitExceeded),
    ).toBe(true);
    expect((await runtime.load(ref)).state).toEqual({ limit: 3, total: 3 });
  });

  it('falls back to the normal loop when a stream expected to be new exists', async () => {
    const ref = next();
    await runtime.handle(ref, { type: 'Open', limit: 7 });
    expect(await runtime.handle(ref, { type: 'Open', limit: 9 }, { expectNew: true })).toEqual({ state: { limit: 7, total: 0 }, events: [] });
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
