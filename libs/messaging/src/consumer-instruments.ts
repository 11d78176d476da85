import type { EventStore, PageHandler, RecordedEvent } from '@paygate/event-store';
import { contextOfEvent, withLogContext, type Logger } from '@paygate/logging';
import type { Counter, Metrics } from '@paygate/metrics';
import { currentTraceparent, inSpan, openSpan, tracingIsOn } from '@paygate/tracing';

/**
 * What every consumer reports, whatever the transport: events handled by outcome, and for the
 * consumers that read the store (in-process subscriptions, Kafka relays) their lag. Handlers run
 * in the log context of the event they handle (its request and correlation ids, its own id) and,
 * for an event stored by traced work, in a consumer span of its trace: the event reaches the
 * handler with that span as its `metadata.traceparent`, so what the handler stores for later (a
 * callback's delivery) continues the trace from there.
 */
export class ConsumerInstruments {
  private readonly handled: Counter<'consumer' | 'outcome'>;

  constructor(
    /** The process's metrics, for what a transport reports of its own (Kafka's messages). */
    readonly metrics: Metrics,
    private readonly store: EventStore,
    private readonly log: Logger,
  ) {
    this.handled = metrics.counter({
      name: 'paygate_events_handled_total',
      help: 'Events handed to a consumer group or relay in this process, by outcome (ok, failed: redelivered after a back-off).',
      labelNames: ['consumer', 'outcome'],
    });
  }

  /** `handler`, run in the event's log context, counted, and logged (debug). */
  handling(
    consumer: string,
    handler: (event: RecordedEvent) => Promise<void>,
  ): (event: RecordedEvent) => Promise<void> {
    const ok = { consumer, outcome: 'ok' };
    const failed = { consumer, outcome: 'failed' };
    return async (event) => {
      try {
        await withLogContext(contextOfEvent(event), () =>
          inSpan(
            processSpanName(event),
            { role: 'consumer', parent: traceparentOf(event), attributes: processAttributes(consumer, event) },
            async () => {
              await handler(withTraceparent(event, currentTraceparent()));
              this.log.debug('event handled', { consumer, type: event.type, stream: event.streamName });
            },
          ),
        );
        this.handled.inc(ok);
      } catch (error) {
        this.handled.inc(failed);
        throw error;
      }
    };
  }

  /** A page `handler`, its events counted by outcome; the handler sets each event's log context where it logs. */
  handlingPage(consumer: string, handler: PageHandler): PageHandler {
    const ok = { consumer, outcome: 'ok' };
    const failed = { consumer, outcome: 'failed' };
    return async (page) => {
      // With tracing off a page is handed on untouched, without a look at its events.
      const spans = !tracingIsOn()
        ? []
        : page.map((event) => {
            const parent = traceparentOf(event);
            return parent
              ? openSpan(processSpanName(event), {
                  role: 'consumer',
                  parent,
                  attributes: processAttributes(consumer, event),
                })
              : undefined;
          });
      try {
        await handler(
          spans.some(Boolean) ? page.map((event, i) => withTraceparent(event, spans[i]?.traceparent())) : page,
        );
        this.handled.inc(ok, page.length);
        for (const span of spans) span?.end();
      } catch (error) {
        this.handled.inc(failed, page.length);
        for (const span of spans) span?.end(true);
        throw error;
      }
    };
  }

  /** Counts events a relay forwarded. */
  forwarded(relay: string, count: number): void {
    this.handled.inc({ consumer: relay, outcome: 'ok' }, count);
  }

  /**
   * Reports `consumer`'s lag at every scrape (never on the hot path): the age of the oldest event
   * under `streamPrefixes` after its position, 0 when it has caught up. Returns a function that
   * stops reporting.
   */
  trackLag(consumer: string, streamPrefixes: string[], position: () => string | null): () => void {
    return this.metrics.gauge({
      name: 'paygate_consumer_lag_seconds',
      help: 'Age of the oldest event a store subscription or Kafka relay of this process has yet to handle (0: caught up).',
      labelNames: ['consumer'],
      read: async () => {
        const [next] = await this.store.readAll({ after: position(), streamPrefixes, maxCount: 1 });
        const lag = next ? Math.max(0, (Date.now() - Date.parse(next.recordedAt)) / 1000) : 0;
        return [{ labels: { consumer }, value: lag }];
      },
    });
  }
}

const processSpanName = (event: RecordedEvent) => `process ${event.type}`;

const processAttributes = (consumer: string, event: RecordedEvent) => ({
  'messaging.operation.type': 'process',
  'messaging.consumer.group.name': consumer,
  'messaging.message.id': event.id,
});

/** The span an event continues: the traced work that stored it, or the Kafka message that carried it. */
export function traceparentOf(event: RecordedEvent): string | undefined {
  const { traceparent } = event.metadata;
  return typeof traceparent === 'string' ? traceparent : undefined;
}

/** `event` as a consumer hands it on: its traceparent that of the span handling it, when there is one. */
export function withTraceparent(event: RecordedEvent, traceparent: string | undefined): RecordedEvent {
  return traceparent ? { ...event, metadata: { ...event.metadata, traceparent } } : event;
}
