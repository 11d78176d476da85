import { openSqlDatabase, type SqlDatabase } from '@paygate/sql';
import { DeciderRuntime, type StreamOpening } from './decider-runtime';
import { WrongExpectedRevisionError, type EventStore } from './event-store';
import { SqlEventStore } from './sql/sql-event-store';
import { counter, type Counter, type CounterCommand, type CounterEvent } from './counter-test-setup';

/** The SQL store as KurrentDB is to the runtime: streams, but no transaction shared with other rows. */
const withoutTransactions = (store: EventStore): EventStore =>
  Object.assign(Object.create(store) as EventStore, { transaction: undefined });

describe('DeciderRuntime: starting a stream in a transaction of the SQL store', () => {
  let sql: SqlDatabase;
  let store: EventStore;
  let runtime: DeciderRuntime<CounterCommand, CounterEvent, Counter>;

  beforeAll(async () => {
    sql = await openSqlDatabase('pglite://memory');
    store = await SqlEventStore.create(sql);
    runtime = new DeciderRuntime(store, counter);
    await sql.query('create table counter_names (name text primary key)');
  });
  afterAll(async () => {
    await store.close();
    await sql.close();
  });

  it('decides commands one after the other and starts the stream with all their events, committed with the rows beside them', async () => {
    const commands: CounterCommand[] = [
      { type: 'Open', limit: 10 },
      { type: 'Add', amount: 3 },
    ];
    const handled = await runtime.transaction(async (tx) => {
      await tx.sql.query("insert into counter_names (name) values ('first')");
      return tx.start('t1', () => commands.shift());
    });
    expect(handled.state).toEqual({ limit: 10, total: 3 });
    expect((await store.readStream('counter-t1')).map((event) => [event.type, event.revision])).toEqual([
      ['Opened', 0],
      ['Added', 1],
    ]);
    expect(await sql.query('select name from counter_names')).toEqual([{ name: 'first' }]);
  });

  it('writes neither the rows nor the stream when the work fails after starting it', async () => {
    const failed = runtime.transaction(async (tx) => {
      await tx.sql.query("insert into counter_names (name) values ('second')");
      await tx.start('t2', (state) => (state ? undefined : { type: 'Open', limit: 5 }));
      throw new Error('crashed before the end');
    });
    await expect(failed).rejects.toThrow('crashed before the end');
    expect(await store.readStream('counter-t2')).toEqual([]);
    expect(await sql.query("select name from counter_names where name = 'second'")).toEqual([]);
  });

  it('refuses to start a stream that exists, and is not offered where the store has no SQL transaction', async () => {
    await runtime.handle('t3', { type: 'Open', limit: 1 });
    await expect(
      runtime.transaction((tx) => tx.start('t3', (state) => (state ? undefined : { type: 'Open', limit: 2 }))),
    ).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    const elsewhere = new DeciderRuntime(withoutTransactions(store), counter);
    await expect(elsewhere.transaction((tx) => tx.start('t4', () => undefined))).rejects.toThrow(/two steps/);
  });
});

describe('DeciderRuntime.startClaimed: a stream and the claim it depends on, on either store', () => {
  let sql: SqlDatabase;
  let store: EventStore;
  let id = 0;

  beforeAll(async () => {
    sql = await openSqlDatabase('pglite://memory');
    store = await SqlEventStore.create(sql);
    await sql.query('create table counter_claims (id text primary key)');
  });
  afterAll(async () => {
    await store.close();
    await sql.close();
  });

  /** Claims `id` (fresh unless claimed before), starts its counter at `limit`; `released` lists what was given up. */
  type Claim = { id: string; fresh: boolean };
  function opening(
    claimId: string,
    limit: number,
    released: string[] = [],
  ): StreamOpening<Claim, CounterCommand, Counter> {
    return {
      claim: async (client) => {
        const inserted = await (client ?? sql).query<{ id: string }>(
          'insert into counter_claims (id) values ($1) on conflict do nothing returning id',
          [claimId],
        );
        return { id: claimId, fresh: inserted.length === 1 };
      },
      isNew: (claim) => claim.fresh,
      stream: (claim) => ({
        id: claim.id,
        next: (state: Counter): CounterCommand | undefined =>
          state ? (state.total === 0 ? { type: 'Add', amount: 1 } : undefined) : { type: 'Open', limit },
      }),
      release: async (claim) => {
        released.push(claim.id);
        await sql.query('delete from counter_claims where id = $1', [claim.id]);
      },
    };
  }
  const claimed = async (claimId: string) =>
    (await sql.query('select id from counter_claims where id = $1', [claimId])).length === 1;

  describe.each([
    ['the SQL store (one transaction)', (s: EventStore) => s],
    ['a store without transactions (KurrentDB: the claim first)', withoutTransactions],
  ])('on %s', (_name, storeOf) => {
    const runtime = () => new DeciderRuntime<CounterCommand, CounterEvent, Counter>(storeOf(store), counter);

    it('writes the claim and starts the stream with every command its first run decides, in one append', async () => {
      const ref = `s${id++}`;
      const opened = await runtime().startClaimed(opening(ref, 5));
      expect(opened).toMatchObject({
        claim: { id: ref, fresh: true },
        started: true,
        stream: { state: { limit: 5, total: 1 } },
      });
      expect((await store.readStream(`counter-${ref}`)).map((event) => [event.type, event.revision])).toEqual([
        ['Opened', 0],
        ['Added', 1],
      ]);
      expect(await claimed(ref)).toBe(true);
    });

    it('gives a claim made before its stream as it is, starting nothing again', async () => {
      const ref = `s${id++}`;
      await runtime().startClaimed(opening(ref, 5));
      const again = await runtime().startClaimed(opening(ref, 9));
      expect(again).toMatchObject({
        claim: { fresh: false },
        started: false,
        stream: { revision: 1, state: { limit: 5 } },
      });
    });

    it('starts the stream of a claim whose first writer died before writing it', async () => {
      const ref = `s${id++}`;
      await sql.query('insert into counter_claims (id) values ($1)', [ref]);
      const opened = await runtime().startClaimed(opening(ref, 7));
      expect(opened).toMatchObject({
        claim: { fresh: false },
        started: true,
        stream: { state: { limit: 7, total: 1 } },
      });
    });
  });

  it('on a store without transactions, releases the claim when its stream cannot be written', async () => {
    const ref = `s${id++}`;
    const failing = withoutTransactions(store);
    failing.appendToStream = () => Promise.reject(new Error('the store went away'));
    const released: string[] = [];
    await expect(new DeciderRuntime(failing, counter).startClaimed(opening(ref, 5, released))).rejects.toThrow(
      'the store went away',
    );
    expect(released).toEqual([ref]);
    expect(await claimed(ref)).toBe(false);
  });

  it('on the SQL store, a stream that cannot be written leaves no claim either', async () => {
    const ref = `s${id++}`;
    const refusing = {
      ...opening(ref, 5),
      stream: (claim: Claim) => ({ id: claim.id, next: (): CounterCommand => ({ type: 'Add', amount: 1 }) }),
    };
    await expect(new DeciderRuntime(store, counter).startClaimed(refusing)).rejects.toThrow('no such counter');
    expect(await claimed(ref)).toBe(false);
  });
});
