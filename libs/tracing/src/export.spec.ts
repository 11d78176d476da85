import { loadConfig } from '@paygate/config';
import { eventually, OtlpReceiver, silentLogger } from '@paygate/testing';
import { currentTraceparent, inSpan, linkToTrace, openSpan } from './spans';
import { startTracing } from './start-tracing';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

describe('spans exported over OTLP/HTTP to a collector', () => {
  let collector: OtlpReceiver;

  beforeAll(async () => {
    collector = await OtlpReceiver.start();
  });

  afterAll(async () => {
    await collector?.close();
  });

  const started = (protocol: string, env: Record<string, string> = {}) =>
    startTracing(
      loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url(), OTEL_EXPORTER_OTLP_PROTOCOL: protocol, ...env })
        .tracing,
      'collections',
      silentLogger,
    )!;

  it('http/json: a span, its child carried by traceparent, and a link, named by the app', async () => {
    const tracing = started('http/json');
    let carried = '';
    const root = await inSpan('POST /v1/collections/initialize', { role: 'server' }, async () => {
      carried = currentTraceparent() ?? '';
      return carried;
    });
    expect(root).toMatch(TRACEPARENT);
    const consumer = openSpan('process CollectionOpened', { role: 'consumer', parent: carried });
    consumer.end();
    await inSpan('timer status', {}, async () => {
      linkToTrace(carried);
      linkToTrace(carried);
    });
    await tracing.shutdown();

    const [, traceId, spanId] = TRACEPARENT.exec(carried)!;
    const received = await eventually(() => (collector.spans.length >= 3 ? collector.spans : undefined));
    expect(collector.exports.map((each) => [each.path, each.contentType])).toEqual([
      ['/v1/traces', 'application/json'],
    ]);
    const byName = new Map(received.map((span) => [span.name, span]));
    expect(byName.get('POST /v1/collections/initialize')).toMatchObject({ service: 'collections', traceId, spanId });
    expect(byName.get('process CollectionOpened')).toMatchObject({ traceId, parentSpanId: spanId, kind: 5 });
    expect(byName.get('timer status')?.traceId).not.toBe(traceId);
    expect(byName.get('timer status')?.linkedTraceIds).toEqual([traceId]);
  });

  it('http/protobuf (the default), with the headers of OTEL_EXPORTER_OTLP_HEADERS', async () => {
    const before = collector.exports.length;
    const tracing = started('http/protobuf', {
      OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-token=s3cret%2C1',
    });
    await inSpan('work', {}, async () => undefined);
    await tracing.shutdown();
    const exported = await eventually(() => collector.exports[before]);
    expect(exported).toMatchObject({ path: '/v1/traces', contentType: 'application/x-protobuf' });
    expect(exported.bytes).toBeGreaterThan(0);
    expect(exported.headers['x-collector-token']).toBe('s3cret,1');
  });

  it('goes quiet again once shut down: no span, no traceparent', async () => {
    await inSpan('after', {}, async () => expect(currentTraceparent()).toBeUndefined());
  });
});
