import {
  context,
  isSpanContextValid,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Link,
  type Span,
} from '@opentelemetry/api';

/**
 * The one door the rest of Paygate uses to trace its work, so no other code imports
 * OpenTelemetry. Until `startTracing` turns it on (OTEL_EXPORTER_OTLP_ENDPOINT set), every call
 * here returns at once: no span, no context switch, no traceparent written anywhere.
 */
let on = false;

/** Set by startTracing only. */
export function setTracingOn(value: boolean): void {
  on = value;
}

export function tracingIsOn(): boolean {
  return on;
}

const tracer = () => trace.getTracer('paygate');

export type SpanRole = 'server' | 'client' | 'producer' | 'consumer' | 'internal';

const KINDS: Record<SpanRole, SpanKind> = {
  server: SpanKind.SERVER,
  client: SpanKind.CLIENT,
  producer: SpanKind.PRODUCER,
  consumer: SpanKind.CONSUMER,
  internal: SpanKind.INTERNAL,
};

export interface SpanOptions {
  role?: SpanRole;
  attributes?: Attributes;
  /** A W3C traceparent this span continues (from a command envelope, an event, a Kafka header); else the current span's. */
  parent?: string;
  /** Traceparents of other traces this work acts for (a timer of a collection, a provider callback). */
  links?: readonly (string | undefined)[];
}

/**
 * Runs `work` in a span named `name`, ended when its promise settles; a rejection marks the span
 * failed and passes on unchanged.
 */
export function inSpan<T>(name: string, options: SpanOptions, work: () => Promise<T>): Promise<T> {
  if (!on) return work();
  const parentContext = options.parent ? contextOf(options.parent) : context.active();
  const links = (options.links ?? []).map(linkOf).filter((link): link is Link => link !== undefined);
  return tracer().startActiveSpan(
    name,
    { kind: KINDS[options.role ?? 'internal'], attributes: options.attributes, links },
    parentContext,
    async (span) => {
      try {
        return await work();
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : undefined });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/** A span whose end the caller decides (an HTTP request ends when its response does). */
export interface OpenSpan {
  /** Runs `work` with the span current, so what it starts is the span's child. */
  within<T>(work: () => T): T;
  setAttributes(attributes: Attributes): void;
  /** This span's W3C traceparent, for a message or a row that carries the work on; undefined while tracing is off. */
  traceparent(): string | undefined;
  end(failed?: boolean): void;
}

const NO_SPAN: OpenSpan = {
  within: (work) => work(),
  setAttributes: () => undefined,
  traceparent: () => undefined,
  end: () => undefined,
};

export function openSpan(name: string, options: SpanOptions): OpenSpan {
  if (!on) return NO_SPAN;
  const parentContext = options.parent ? contextOf(options.parent) : context.active();
  const links = (options.links ?? []).map(linkOf).filter((link): link is Link => link !== undefined);
  const span = tracer().startSpan(
    name,
    { kind: KINDS[options.role ?? 'internal'], attributes: options.attributes, links },
    parentContext,
  );
  const spanContext = trace.setSpan(parentContext, span);
  return {
    within: (work) => context.with(spanContext, work),
    setAttributes: (attributes) => span.setAttributes(attributes),
    traceparent: () => {
      const carrier: Record<string, string> = {};
      propagation.inject(spanContext, carrier);
      return carrier.traceparent;
    },
    end: (failed) => {
      if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    },
  };
}

/** The current span's W3C traceparent, to carry to where the work goes on; undefined while tracing is off. */
export function currentTraceparent(): string | undefined {
  if (!on) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/** The current span's trace and span ids (a metric's exemplar names them); undefined while tracing is off or outside a span. */
export function currentSpanIds(): { trace_id: string; span_id: string } | undefined {
  if (!on) return undefined;
  const span = trace.getActiveSpan()?.spanContext();
  return span && isSpanContextValid(span) ? { trace_id: span.traceId, span_id: span.spanId } : undefined;
}

/** Adds attributes to the current span (an SRE finds the trace by them). */
export function annotateSpan(attributes: Attributes): void {
  if (!on) return;
  trace.getActiveSpan()?.setAttributes(attributes);
}

/**
 * Links the current span to the trace `traceparent` names, when that is another trace: a timer
 * or a provider's callback acting on a collection points back at the payment's trace.
 */
export function linkToTrace(traceparent: string | undefined): void {
  if (!on || !traceparent) return;
  const span = trace.getActiveSpan();
  const link = linkOf(traceparent);
  if (!span || !link || link.context.traceId === span.spanContext().traceId) return;
  // A run may load the same stream more than once (a retry after a conflict): one link per trace.
  const linked = linkedTraces.get(span) ?? new Set<string>();
  if (linked.has(link.context.traceId)) return;
  linkedTraces.set(span, linked.add(link.context.traceId));
  span.addLink(link);
}

const linkedTraces = new WeakMap<Span, Set<string>>();

function contextOf(traceparent: string) {
  return propagation.extract(context.active(), { traceparent });
}

function linkOf(traceparent: string | undefined): Link | undefined {
  if (!traceparent) return undefined;
  const linked = trace.getSpanContext(contextOf(traceparent));
  return linked && trace.isSpanContextValid(linked) ? { context: linked } : undefined;
}
