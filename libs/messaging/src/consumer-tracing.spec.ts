import { loadConfig } from '@paygate/config';
import type { EventStore, RecordedEvent } from '@paygate/event-store';
import { NO_METRICS } from '@paygate/metrics';
import { eventually, OtlpReceiver, silentLogger } from '@paygate/testing';
import { startTracing, type StartedTracing } from '@paygate/tracing';
import { ConsumerInstruments } from './consumer-instruments';
import { relayMessage } from './kafka/kafka-event-bus';

const STORED_BY = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

const event = (id: string, metadata: Record<string, unknown>): RecordedEvent => ({
  id,
  type: 'collections.CollectionSettled',
  streamName: 'collection-PG1',
  revision: 3,
  data: {},
  metadata: { schemaVersion: 1, ...metadata },
  position: id,
  recordedAt: new Date().toISOString(),
});

describe('consumers with tracing on', () => {
  let collector: OtlpReceiver;
  let tracing: StartedTracing;
  const instruments = new ConsumerInstruments(NO_METRICS, {} as EventStore, silentLogger);

  beforeAll(async () => {
    collector = await OtlpReceiver.start();
    const settings = loadConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url(),
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    });
    tracing = startTracing(settings.tracing, 'webhook-dispatcher', silentLogger)!;
  });

  afterAll(async () => {
    await tracing?.shutdown();
    await collector?.close();
  });

  it("hand a traced event on as their own span's, in the trace of the work that stored it; an untraced one as it is", async () => {
    let handed: RecordedEvent[] = [];
    const handle = instruments.handlingPage('webhook-dispatcher', async (page) => {
      handed = page;
    });
    const untraced = event('e-2', { correlationId: 'req-1' });
    await handle([event('e-1', { correlationId: 'req-1', traceparent: STORED_BY }), untraced]);

    const [, traceId, storedSpan] = STORED_BY.split('-');
    const [, handedTrace, consumerSpan] = String(handed[0].metadata.traceparent).split('-');
    expect(handedTrace).toBe(traceId);
    expect(consumerSpan).not.toBe(storedSpan);
    expect(handed[0].metadata.correlationId).toBe('req-1');
    expect(handed[1]).toBe(untraced);

    await tracing.shutdown();
    const spans = await eventually(() => (collector.spans.length > 0 ? collector.spans : undefined));
    expect(spans).toEqual([
      expect.objectContaining({
        name: 'process collections.CollectionSettled',
        kind: 5,
        traceId,
        spanId: consumerSpan,
        parentSpanId: storedSpan,
        attributes: expect.objectContaining({ 'messaging.consumer.group.name': 'webhook-dispatcher' }),
      }),
    ]);
  });

  it("put the relay's span in the Kafka message's traceparent header, and nothing when there is none", () => {
    expect(relayMessage(event('e-1', {}), STORED_BY).headers).toEqual({
      'event-id': 'e-1',
      'event-type': 'collections.CollectionSettled',
      traceparent: STORED_BY,
    });
    expect(relayMessage(event('e-1', {})).headers).not.toHaveProperty('traceparent');
  });
});
