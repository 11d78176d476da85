import { openSqlDatabase, type SqlDatabase } from '@paygate/sql';
import { describeWithService, eventually, uniqueSchema } from '@paygate/testing';
import { eachEvent, type EventSubscription } from '../event-store';
import { SqlEventStore } from './sql-event-store';

describeWithService('postgres', 'SqlEventStore: subscriptions told of appends of other processes', (url) => {
  const schema = uniqueSchema('es_notified');
  let mine: SqlDatabase;
  let theirs: SqlDatabase;
  let subscription: EventSubscription | undefined;
  let heldBackSubscription: EventSubscription | undefined;

  beforeAll(async () => {
    mine = await openSqlDatabase(url, { schema });
    theirs = await openSqlDatabase(url, { schema });
  });
  afterAll(async () => {
    await subscription?.stop();
    await heldBackSubscription?.stop();
    await mine?.query(`drop schema if exists ${schema} cascade`);
    await Promise.all([mine?.close(), theirs?.close()]);
  });

  it('reads what another process appended at once, without polling for it', async () => {
    // Its poll is longer than the test: only the append's notification can wake it.
    const reader = await SqlEventStore.create(mine, { pollIntervalMs: 600_000 });
    const writer = await SqlEventStore.create(theirs, { pollIntervalMs: 600_000 });
    const seen: string[] = [];
    subscription = reader.subscribeToAll(
      { streamPrefixes: ['notified-'] },
      eachEvent(async (event) => void seen.push(event.type)),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    await writer.appendToStream('notified-1', [{ type: 'Appended', data: {} }]);
    await writer.transaction(async (tx) => {
      await tx.appendToStream('notified-2', [{ type: 'AppendedInATransaction', data: {} }]);
    });
    await eventually(() => (seen.length === 2 ? true : undefined), 5_000, 'both events');
    expect(seen).toEqual(['Appended', 'AppendedInATransaction']);
  });

  it('reads an append that an older transaction held back once that transaction ends, though its end notifies nobody', async () => {
    const store = await SqlEventStore.create(mine, { pollIntervalMs: 600_000 });
    const seen: string[] = [];
    heldBackSubscription = store.subscribeToAll(
      { streamPrefixes: ['held-back-'] },
      eachEvent(async (event) => void seen.push(event.type)),
    );
    let endOlder!: () => void;
    let olderStarted!: () => void;
    const started = new Promise<void>((resolve) => (olderStarted = resolve));
    // A transaction with an id, begun before the append (any schema's would do): the horizon stays behind it.
    const older = theirs.transaction(async (tx) => {
      await tx.query('select pg_current_xact_id()');
      olderStarted();
      await new Promise<void>((resolve) => (endOlder = resolve));
    });
    await started;
    await store.appendToStream('held-back-1', [{ type: 'AppendedBehindAnOlderTransaction', data: {} }]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(seen).toEqual([]); // the append woke the subscription, and its read could not see past the horizon
    endOlder();
    await older;
    await eventually(() => (seen.length === 1 ? true : undefined), 5_000, 'the held-back event');
    expect(seen).toEqual(['AppendedBehindAnOlderTransaction']);
  });
});
