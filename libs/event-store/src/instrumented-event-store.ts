import { LATENCY_BUCKETS, secondsSince, type Metrics } from '@paygate/metrics';
import { inSpan } from '@paygate/tracing';
import { WrongExpectedRevisionError, type EventStore, type EventStoreTransaction } from './event-store';

/**
 * The store with its appends timed: `paygate_event_store_append_duration_seconds{outcome}`,
 * where outcome is `ok`, `conflict` (another writer was first; the runtime decides again) or
 * `error`; and traced, a span per append naming the stream. Every other call passes straight through.
 */
export function instrumentEventStore(store: EventStore, metrics: Metrics): EventStore {
  const appends = metrics.histogram({
    name: 'paygate_event_store_append_duration_seconds',
    help: 'Time to append to a stream, by outcome (ok, conflict, error).',
    labelNames: ['outcome'],
    buckets: LATENCY_BUCKETS,
  });
  const OK = { outcome: 'ok' } as const;
  const CONFLICT = { outcome: 'conflict' } as const;
  const ERROR = { outcome: 'error' } as const;
  const timed =
    (append: EventStore['appendToStream']): EventStore['appendToStream'] =>
    (streamName, events, options) =>
      inSpan(
        'append',
        { role: 'client', attributes: { 'paygate.stream': streamName, 'paygate.events': events.length } },
        async () => {
          const started = performance.now();
          try {
            const result = await append(streamName, events, options);
            appends.observe(OK, secondsSince(started));
            return result;
          } catch (error) {
            appends.observe(error instanceof WrongExpectedRevisionError ? CONFLICT : ERROR, secondsSince(started));
            throw error;
          }
        },
      );
  const transaction = store.transaction?.bind(store);
  return {
    appendToStream: timed((streamName, events, options) => store.appendToStream(streamName, events, options)),
    transaction:
      transaction &&
      (<T>(work: (tx: EventStoreTransaction) => Promise<T>) =>
        transaction((tx) =>
          work({
            sql: tx.sql,
            appendToStream: timed((streamName, events, options) => tx.appendToStream(streamName, events, options)),
          }),
        )),
    readStream: (streamName, options) => store.readStream(streamName, options),
    readAt: (places) => store.readAt(places),
    readAll: (options) => store.readAll(options),
    subscribeToAll: (options, handler) => store.subscribeToAll(options, handler),
    ping: () => store.ping(),
    close: () => store.close(),
  };
}
