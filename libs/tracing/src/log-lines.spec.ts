import { loadConfig } from '@paygate/config';
import { createLogger } from '@paygate/logging';
import { OtlpReceiver, silentLogger } from '@paygate/testing';
import { currentTraceparent, inSpan } from './spans';
import { startTracing, type StartedTracing } from './start-tracing';

/** What `work` writes to stdout, one parsed JSON log line each. */
async function logged(work: () => Promise<void>): Promise<Record<string, unknown>[]> {
  const lines: string[] = [];
  const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    await work();
  } finally {
    write.mockRestore();
  }
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('log lines inside a traced operation', () => {
  const log = createLogger('collections', 'info');
  let collector: OtlpReceiver;
  let tracing: StartedTracing;

  beforeAll(async () => {
    collector = await OtlpReceiver.start();
    tracing = startTracing(
      loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url() }).tracing,
      'collections',
      silentLogger,
    )!;
  });

  afterAll(async () => {
    await tracing?.shutdown();
    await collector?.close();
  });

  it("carry the span's trace_id and span_id, so a log search finds the trace and back", async () => {
    let traceparent = '';
    const [entry] = await logged(() =>
      inSpan('collections/collections.initialize', { role: 'server' }, async () => {
        traceparent = currentTraceparent() ?? '';
        log.info('collection opened');
      }),
    );
    const [, traceId, spanId] = traceparent.split('-');
    expect(entry).toMatchObject({ message: 'collection opened', trace_id: traceId, span_id: spanId });
  });

  it('outside any span carry neither', async () => {
    const [entry] = await logged(async () => log.info('listening'));
    expect(entry).not.toHaveProperty('trace_id');
    expect(entry).not.toHaveProperty('span_id');
  });
});
