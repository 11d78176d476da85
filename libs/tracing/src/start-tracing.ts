import { context, diag, DiagLogLevel, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { Config } from '@paygate/config';
import type { Logger } from '@paygate/logging';
import { setTracingOn } from './spans';

export interface StartedTracing {
  /** Where spans go (the OTLP traces URL). */
  readonly url: string;
  /** Sends what is still buffered and stops; called last in a shutdown. */
  shutdown(): Promise<void>;
}

/**
 * Turns tracing on for this process when an OTLP endpoint is configured (OTEL_EXPORTER_OTLP_ENDPOINT
 * or _TRACES_ENDPOINT); otherwise leaves it off and returns undefined. Spans are batched and
 * exported over OTLP/HTTP in the configured encoding; outbound HTTP (providers, billers,
 * callbacks) is traced by undici's instrumentation, which also hands the receiver a traceparent.
 */
export function startTracing(settings: Config['tracing'], app: string, log: Logger): StartedTracing | undefined {
  const url = tracesUrl(settings);
  if (!url) return undefined;
  diag.setLogger(exportProblems(log), DiagLogLevel.WARN);
  const options = { url, headers: parseHeaders(settings.headers?.reveal()) };
  const exporter = settings.protocol === 'http/json' ? new JsonExporter(options) : new ProtobufExporter(options);
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName ?? app }),
    spanProcessors: [new BatchSpanProcessor({ exporter })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  const undici = new UndiciInstrumentation();
  undici.setTracerProvider(provider);
  undici.enable();
  setTracingOn(true);
  return {
    url,
    shutdown: async () => {
      undici.disable();
      await provider.shutdown();
      setTracingOn(false);
      trace.disable();
      context.disable();
      propagation.disable();
      diag.disable();
    },
  };
}

/** OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, or OTEL_EXPORTER_OTLP_ENDPOINT with the traces path. */
export function tracesUrl(settings: Config['tracing']): string | undefined {
  if (settings.tracesEndpoint) return settings.tracesEndpoint;
  if (!settings.endpoint) return undefined;
  return `${settings.endpoint.replace(/\/+$/, '')}/v1/traces`;
}

/** OTEL_EXPORTER_OTLP_HEADERS: `key=value` pairs separated by commas, values percent-encoded. */
export function parseHeaders(text: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (text ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    headers[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  return headers;
}

/** The SDK's own complaints (an export the collector refused or never answered), as log lines. */
function exportProblems(log: Logger) {
  const write = (message: string) => log.warn('tracing', { detail: message });
  return { error: write, warn: write, info: () => undefined, debug: () => undefined, verbose: () => undefined };
}
