import { randomUUID } from 'node:crypto';
import { describeOnAllSqlEngines, eventually } from '@paygate/testing';
import { eachEvent, WrongExpectedRevisionError, type RecordedEvent } from '../event-store';
import { SqlEventStore } from './sql-event-store';

/** EventStore.transaction, which only the SQL store has: its events and the caller's rows commit together. */
describeOnAllSqlEngines('SqlEventStore transactions', 'es_tx', (open) => {
  let engine: Awaited<ReturnType<typeof open>>;
  let store: SqlEventStore;
  const stream = () => `tx${randomUUID().slice(0, 8)}-s`;
  const event = (type: string) => ({ type, data: { at: type } });

  beforeAll(async () => {
    engine = await open();
    store = await SqlEventStore.create(engine.db);
    await engine.db.query('create table if not exists tx_rows (name text primary key)');
  });
  afterAll(() => engine.close());

  it('commits the events with the rows written beside them, and subscribers see the events', async () => {
    const name = stream();
    const seen: RecordedEvent[] = [];
    const subscription = store.subscribeToAll(
      { streamPrefixes: [name] },
      eachEvent(async (recorded) => void seen.push(recorded)),
    );
    try {
      const result = await store.transaction(async (tx) => {
        await tx.sql.query('insert into tx_rows (name) values ($1)', [name]);
        return tx.appendToStream(name, [event('A'), event('B')], { expectedRevision: 'no_stream' });
      });
      expect(result.nextExpectedRevision).toBe(1);
      expect((await store.readStream(name)).map((e) => e.type)).toEqual(['A', 'B']);
      expect(await engine.db.query('select name from tx_rows where name = $1', [name])).toEqual([{ name }]);
      await eventually(() => (seen.length >= 2 ? true : undefined), 15_000, 'the subscription to see both events');
      expect(seen.map((e) => e.type)).toEqual(['A', 'B']);
    } finally {
      await subscription.stop();
    }
  });

  it('writes nothing when the work fails after appending, so the stream can be started again', async () => {
    const name = stream();
    const failing = store.transaction(async (tx) => {
      await tx.sql.query('insert into tx_rows (name) values ($1)', [name]);
      await tx.appendToStream(name, [event('A')], { expectedRevision: 'no_stream' });
      throw new Error('crashed half-way');
    });
    await expect(failing).rejects.toThrow('crashed half-way');
    expect(await store.readStream(name)).toEqual([]);
    expect(await engine.db.query('select name from tx_rows where name = $1', [name])).toEqual([]);
    await store.appendToStream(name, [event('A')], { expectedRevision: 'no_stream' });
    expect(await store.readStream(name)).toHaveLength(1);
  });

  it('answers an unmet expected revision with the typed conflict', async () => {
    const name = stream();
    await store.appendToStream(name, [event('A')]);
    const conflicting = store.transaction((tx) =>
      tx.appendToStream(name, [event('B')], { expectedRevision: 'no_stream' }),
    );
    await expect(conflicting).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    expect((await store.readStream(name)).map((e) => e.type)).toEqual(['A']);
  });
});
