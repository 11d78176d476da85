import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What ties a log line to the work it belongs to, carried through async calls of one request,
 * command or handled event. `requestId` is the HTTP request that caused the work (the
 * `x-request-id` a caller sent or one generated); `correlationId` is the flow it belongs to (a
 * collection's is the request id that opened it, kept on every event of its stream and of the
 * streams it causes); `eventId` is the event a consumer is handling.
 */
export interface LogContext {
  requestId?: string;
  correlationId?: string;
  eventId?: string;
}

const storage = new AsyncLocalStorage<LogContext>();

/** Runs `work` with `context` attached to every log line and event it writes, however deep. */
export function withLogContext<T>(context: LogContext, work: () => T): T {
  return storage.run(context, work);
}

/** The context of the work running now, if any. */
export function currentLogContext(): LogContext | undefined {
  return storage.getStore();
}

/**
 * Names this work's flow from here on: a command on an existing collection belongs to the flow
 * that opened it, so the rest of the request logs that correlation id.
 */
export function joinFlow(correlationId: string): void {
  const context = storage.getStore();
  if (context) context.correlationId = correlationId;
}

/** The tracing fields stored in an event's metadata (and read back by its consumers). */
export interface TraceMetadata {
  requestId?: string;
  correlationId?: string;
  /** The span of the work that stored the event (W3C), when tracing is on: its consumers continue that trace. */
  traceparent?: string;
}

/** The context a consumer handles `event` in: the ids its metadata carries, and its own id. */
export function contextOfEvent(event: { id: string; metadata: Record<string, unknown> }): LogContext {
  const { requestId, correlationId } = event.metadata;
  return {
    requestId: typeof requestId === 'string' ? requestId : undefined,
    correlationId:
      typeof correlationId === 'string' ? correlationId : typeof requestId === 'string' ? requestId : undefined,
    eventId: event.id,
  };
}
