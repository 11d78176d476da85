import { loadConfig } from '@paygate/config';
import type { EventStore, RecordedEvent } from '@paygate/event-store';
import { NO_METRICS } from '@paygate/metrics';
import { eventually, OtlpReceiver, silentLogger } from '@paygate/testing';
import { currentTraceparent, inSpan, startTracing, type StartedTracing } from '@paygate/tracing';
import { ConsumerInstruments } from './consumer-instruments';
import { relayMessage } from './kafka/kafka-event-bus';
import { outgoingCommand } from './remote/outgoing-command';
import { ServedCommands } from './remote/served-commands';

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

describe('messaging with tracing on', () => {
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

  it("a command carries the sender's span in its envelope, and the serving side's span continues it", async () => {
    const served = new ServedCommands(NO_METRICS, silentLogger);
    let handledIn = '';
    served.add('collections', {
      'collections.confirm': async () => {
        handledIn = currentTraceparent() ?? '';
        return { ok: true };
      },
    });
    const envelope = await inSpan('collections/collections.confirm', { role: 'client' }, async () =>
      outgoingCommand('collections', 'collections.confirm', {}, {}),
    );
    expect(envelope.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    // The envelope crosses the wire as JSON.
    expect(await served.receive(JSON.parse(JSON.stringify(envelope)))).toEqual({ ok: true, value: { ok: true } });
    const [, traceId, senderSpan] = String(envelope.traceparent).split('-');
    const [, handledTrace, handledSpan] = handledIn.split('-');
    expect(handledTrace).toBe(traceId);
    expect(handledSpan).not.toBe(senderSpan);
  });

  it("consumers hand a traced event on as their own span's, in the trace of the work that stored it; an untraced one as it is", async () => {
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
    const spans = await eventually(() =>
      collector.spans.some((span) => span.kind === 5) ? collector.spans.filter((span) => span.kind === 5) : undefined,
    );
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

  it("the relay puts its span in the Kafka message's traceparent header, and nothing when there is none", () => {
    expect(relayMessage(event('e-1', {}), STORED_BY).headers).toEqual({
      'event-id': 'e-1',
      'event-type': 'collections.CollectionSettled',
      traceparent: STORED_BY,
    });
    expect(relayMessage(event('e-1', {})).headers).not.toHaveProperty('traceparent');
  });
});
