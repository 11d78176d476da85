import { openSqlDatabase, type SqlDatabase } from '@paygate/sql';
import { describeWithService, eventually, uniqueSchema } from '@paygate/testing';
import { eachEvent, type EventSubscription } from '../event-store';
import { SqlEventStore } from './sql-event-store';

describeWithService('postgres', 'SqlEventStore: subscriptions told of appends of other processes', (url) => {
  const schema = uniqueSchema('es_notified');
  let mine: SqlDatabase;
  let theirs: SqlDatabase;
  let subscription: EventSubscription | undefined;

  beforeAll(async () => {
    mine = await openSqlDatabase(url, { schema });
    theirs = await openSqlDatabase(url, { schema });
  });
  afterAll(async () => {
    await subscription?.stop();
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
});
