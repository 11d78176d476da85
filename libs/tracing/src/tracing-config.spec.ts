import { ConfigError, loadConfig } from '@paygate/config';
import { silentLogger } from '@paygate/testing';
import { currentTraceparent, inSpan } from './spans';
import { parseHeaders, startTracing, tracesUrl } from './start-tracing';

const tracingOf = (env: Record<string, string>) => loadConfig(env).tracing;

function problemOf(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('the configuration loaded');
}

describe('tracing configuration (the standard OTEL_* variables)', () => {
  it('is off without an OTLP endpoint: no span, no traceparent carried anywhere', async () => {
    const settings = tracingOf({});
    expect(startTracing(settings, 'api-gateway', silentLogger)).toBeUndefined();
    await inSpan('work', { role: 'server' }, async () => expect(currentTraceparent()).toBeUndefined());
  });

  it('sends to <OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces, or to OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given', () => {
    expect(tracesUrl(tracingOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }))).toBe(
      'http://collector:4318/v1/traces',
    );
    expect(
      tracesUrl(
        tracingOf({
          OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/otlp',
        }),
      ),
    ).toBe('https://traces.example/otlp');
  });

  it('takes both OTLP/HTTP encodings and refuses gRPC, naming the variable', () => {
    expect(tracingOf({}).protocol).toBe('http/protobuf');
    expect(tracingOf({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }).protocol).toBe('http/json');
    expect(problemOf({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toBe(
      'invalid configuration: OTEL_EXPORTER_OTLP_PROTOCOL must be one of http/protobuf, http/json, got "grpc"',
    );
  });

  it('refuses an endpoint that is no http(s) URL', () => {
    expect(problemOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4317' })).toMatch(/OTEL_EXPORTER_OTLP_ENDPOINT/);
  });

  it('reads OTEL_EXPORTER_OTLP_HEADERS as percent-encoded key=value pairs, and never quotes a bad one', () => {
    const headers = tracingOf({ OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20s3cret, x-tenant=pay' }).headers;
    expect(parseHeaders(headers?.reveal())).toEqual({ authorization: 'Bearer s3cret', 'x-tenant': 'pay' });
    const problem = problemOf({ OTEL_EXPORTER_OTLP_HEADERS: 'token s3cret' });
    expect(problem).toMatch(/OTEL_EXPORTER_OTLP_HEADERS must be key=value pairs/);
    expect(problem).not.toMatch(/s3cret/);
  });
});
