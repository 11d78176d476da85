import type { SqlDatabase } from '@paygate/sql';
import type { EventStore } from './event-store';
import { SqlEventStore } from './sql/sql-event-store';

/**
 * EVENT_STORE_URL unset keeps events in the SQL store (STORE_URL); `kurrentdb://` or `esdb://`
 * (and their `+discover` forms) select KurrentDB/EventStoreDB.
 */
export async function openEventStore(sql: SqlDatabase, eventStoreUrl?: string): Promise<EventStore> {
  if (!eventStoreUrl) return SqlEventStore.create(sql);
  if (/^(kurrentdb|kdb|esdb|eventstore)(\+discover)?:\/\//.test(eventStoreUrl)) {
    const { KurrentEventStore } = await import('./kurrentdb/kurrent-event-store');
    return KurrentEventStore.connect(eventStoreUrl);
  }
  throw new Error(
    `unsupported EVENT_STORE_URL scheme in "${eventStoreUrl.split('://')[0]}://…" (expected kurrentdb:// or esdb://)`,
  );
}
