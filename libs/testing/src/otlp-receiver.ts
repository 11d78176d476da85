import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as an OTLP/JSON export carries it, with the service that sent it. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  /** Empty for a trace's root. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind number: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
  /** The trace ids this span links to. */
  linkedTraceIds: string[];
}

/** An OTLP request as it arrived, whatever its encoding. */
export interface ReceivedExport {
  path: string;
  contentType: string;
  headers: IncomingHttpHeaders;
  bytes: number;
}

type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
};
type KeyValue = { key: string; value: AnyValue };
type OtlpJsonSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  attributes?: KeyValue[];
  links?: { traceId: string }[];
};
type OtlpJsonRequest = {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: { spans?: OtlpJsonSpan[] }[];
  }[];
};

const valueOf = (value: AnyValue): unknown =>
  value.stringValue ??
  (value.intValue === undefined ? undefined : Number(value.intValue)) ??
  value.boolValue ??
  value.doubleValue ??
  value.arrayValue?.values?.map(valueOf);

const attributesOf = (list: KeyValue[] = []) => Object.fromEntries(list.map(({ key, value }) => [key, valueOf(value)]));

/**
 * An OpenTelemetry collector's OTLP/HTTP traces endpoint on 127.0.0.1, for tests: it answers
 * every export 200, keeps what arrived, and reads the spans of `http/json` exports (an
 * `http/protobuf` one is kept as bytes only). Point an app at it with
 * `OTEL_EXPORTER_OTLP_ENDPOINT=<url>`.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  readonly exports: ReceivedExport[] = [];
  /** Exports that could not be read (not OTLP/JSON). */
  readonly problems: string[] = [];

  private readonly server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const contentType = request.headers['content-type'] ?? '';
      this.exports.push({ path: request.url ?? '', contentType, headers: request.headers, bytes: body.length });
      try {
        if (contentType.startsWith('application/json')) this.read(JSON.parse(body.toString('utf8')));
      } catch (error) {
        this.problems.push(String(error));
      }
      response.writeHead(200, { 'content-type': contentType || 'application/json' }).end('{}');
    });
  });

  private constructor() {
    // Exporters keep their connection between batches (5 s apart by default): Node's 5 s idle timeout would race them.
    this.server.keepAliveTimeout = 60_000;
  }

  static async start(): Promise<OtlpReceiver> {
    const receiver = new OtlpReceiver();
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  /** The base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it. */
  url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Every span of one trace received so far. */
  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }

  /** The chain of spans from `span` up to its trace's root (as far as received), `span` first. */
  ancestry(span: ReceivedSpan): ReceivedSpan[] {
    const byId = new Map(this.trace(span.traceId).map((each) => [each.spanId, each]));
    const chain = [span];
    for (let parent = byId.get(span.parentSpanId); parent; parent = byId.get(parent.parentSpanId)) chain.push(parent);
    return chain;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private read(request: OtlpJsonRequest): void {
    for (const resourceSpans of request.resourceSpans ?? []) {
      const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'] ?? '');
      for (const scope of resourceSpans.scopeSpans ?? [])
        for (const span of scope.spans ?? [])
          this.spans.push({
            service,
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId ?? '',
            name: span.name,
            kind: span.kind ?? 0,
            attributes: attributesOf(span.attributes),
            linkedTraceIds: (span.links ?? []).map((link) => link.traceId),
          });
    }
  }
}
