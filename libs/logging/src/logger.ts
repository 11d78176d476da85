import { context as traceContext, trace } from '@opentelemetry/api';
import { currentLogContext } from './log-context';

/**
 * JSON lines on stdout, one object per entry, with the request, correlation and event id of the
 * work that wrote it (log-context.ts) and, inside a traced operation, its trace and span id;
 * callers never pass secrets or card numbers.
 */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/**
 * A logger writing entries at `level` and above. The level is fixed when the logger is made
 * (apps take it from the configuration, LOG_LEVEL); children keep it.
 */
export function createLogger(component: string, level: LogLevel, bound: Record<string, unknown> = {}): Logger {
  const threshold = RANK[level];
  if (threshold === undefined) throw new Error(`unknown log level "${String(level)}"`);
  const write = (entryLevel: LogLevel, message: string, fields?: Record<string, unknown>) => {
    if (RANK[entryLevel] < threshold) return;
    const context = currentLogContext();
    // With tracing off there is never an active span (libs/tracing): this reads the no-op root context.
    const span = trace.getSpanContext(traceContext.active());
    // Undefined ids drop out of the JSON.
    const entry = {
      time: new Date().toISOString(),
      level: entryLevel,
      component,
      message,
      request_id: context?.requestId,
      correlation_id: context?.correlationId,
      event_id: context?.eventId,
      trace_id: span?.traceId,
      span_id: span?.spanId,
      ...bound,
      ...fields,
    };
    process.stdout.write(
      `${JSON.stringify(entry, (_key, value) => (value instanceof Error ? value.message : value))}\n`,
    );
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
    child: (fields) => createLogger(component, level, { ...bound, ...fields }),
  };
}
