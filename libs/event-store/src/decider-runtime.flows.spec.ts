import { currentLogContext, withLogContext } from '@paygate/logging';
import { openSqlDatabase, type SqlDatabase } from '@paygate/sql';
import { DeciderRuntime } from './decider-runtime';
import type { EventStore } from './event-store';
import { SqlEventStore } from './sql/sql-event-store';
import { counter, type Counter, type CounterCommand, type CounterEvent } from './counter-test-setup';

/** A stream that is one flow (a collection): whatever works on it, from any request or timer, logs that flow. */
describe('DeciderRuntime: one flow per stream', () => {
  let sql: SqlDatabase;
  let store: EventStore;
  let runtime: DeciderRuntime<CounterCommand, CounterEvent, Counter>;

  beforeAll(async () => {
    sql = await openSqlDatabase('pglite://memory');
    store = await SqlEventStore.create(sql);
    runtime = new DeciderRuntime(store, counter, { oneFlowPerStream: true });
  });
  afterAll(async () => {
    await store.close();
    await sql.close();
  });

  const flowOf = <T>(requestId: string, work: () => Promise<T>) =>
    withLogContext({ requestId, correlationId: requestId }, async () => {
      await work();
      return currentLogContext()?.correlationId;
    });

  it('a stream started in one request carries that flow; a later request joins it by a command', async () => {
    await flowOf('req-open', () => runtime.handle('f1', { type: 'Open', limit: 5 }, { expectNew: true }));
    expect(await flowOf('req-later', () => runtime.handle('f1', { type: 'Add', amount: 1 }))).toBe('req-open');
  });

  it('a later request that only reads the stream (its command would decide nothing) joins the flow too', async () => {
    await flowOf('req-open-2', () => runtime.handle('f2', { type: 'Open', limit: 5 }, { expectNew: true }));
    expect(await flowOf('req-read', () => runtime.load('f2'))).toBe('req-open-2');
  });

  it('a stream of many flows (a wallet) leaves the work in its own flow', async () => {
    const shared = new DeciderRuntime(store, counter);
    await flowOf('req-a', () => shared.handle('f3', { type: 'Open', limit: 5 }, { expectNew: true }));
    expect(await flowOf('req-b', () => shared.load('f3'))).toBe('req-b');
  });
});
