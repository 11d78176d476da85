import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Secret } from '@paygate/config';
import { withLogContext, type LogContext, type Logger } from '@paygate/logging';
import { LATENCY_BUCKETS } from '@paygate/metrics';
import { openSpan, type OpenSpan } from '@paygate/tracing';
import { envelope } from '../envelope';
import type { PrometheusMetrics } from '../metrics/prometheus-metrics';
import { bearerTokenMatches } from './bearer-token';

export const REQUEST_ID_HEADER = 'x-request-id';

/** A caller's request id is kept when it is short and plain, so it is safe in logs and headers. */
const ACCEPTED_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's `x-request-id` when acceptable, otherwise a new one. */
export function requestIdFrom(header: string | string[] | undefined): string {
  return typeof header === 'string' && ACCEPTED_REQUEST_ID.test(header) ? header : randomUUID();
}

/** Probes and scrapes: logged at debug, so they do not bury the requests worth following. */
const isRoutine = (route: string) => route === '/metrics' || route.startsWith('/health/');

/**
 * Every request runs in a log context holding its request id (returned in `x-request-id`) and, when tracing is on, in a
 * server span (continuing the caller's `traceparent`; probes and scrapes have none), is logged when answered, and
 * is counted and timed by route pattern (never the raw URL, which would make a series per path and may carry a signed
 * query), method and status. GET /metrics is a plain Fastify route without rate limits; with `metricsToken` it answers
 * only `authorization: Bearer <token>`, else anyone: keep it off public networks either way (docs/operations.md).
 */
export function observeRequests(
  fastify: FastifyInstance,
  metrics: PrometheusMetrics,
  log: Logger,
  metricsToken?: Secret,
): void {
  const requests = metrics.histogram({
    name: 'paygate_http_request_duration_seconds',
    help: 'HTTP requests served, by route pattern, method and status (the _count series counts them).',
    labelNames: ['route', 'method', 'status'],
    buckets: LATENCY_BUCKETS,
  });
  const contexts = new WeakMap<FastifyRequest, LogContext>();
  const spans = new WeakMap<FastifyRequest, OpenSpan>();
  const statusLabels = new Map<number, string>();

  fastify.addHook('onRequest', (request, reply, done) => {
    const requestId = requestIdFrom(request.headers[REQUEST_ID_HEADER]);
    const context: LogContext = { requestId, correlationId: requestId };
    contexts.set(request, context);
    void reply.header(REQUEST_ID_HEADER, requestId);
    const route = request.routeOptions.url;
    if (route === undefined || isRoutine(route)) return withLogContext(context, done);
    const traceparent = request.headers.traceparent;
    const span = openSpan(`${request.method} ${route}`, {
      role: 'server',
      parent: typeof traceparent === 'string' ? traceparent : undefined,
      attributes: {
        'http.request.method': request.method,
        'http.route': route,
        'http.request.header.x-request-id': [requestId],
      },
    });
    spans.set(request, span);
    withLogContext(context, () => span.within(done));
  });
  // The body arrives on the socket's own async context: enter the request's again before the handler.
  fastify.addHook('preHandler', (request, _reply, done) => {
    const context = contexts.get(request);
    const span = spans.get(request);
    if (context) withLogContext(context, () => (span ? span.within(done) : done()));
    else done();
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    let status = statusLabels.get(reply.statusCode);
    if (status === undefined) statusLabels.set(reply.statusCode, (status = String(reply.statusCode)));
    const route = request.routeOptions.url ?? 'unmatched';
    const span = spans.get(request);
    // Observed in the request's span: with tracing on, the bucket's exemplar names this request's trace.
    const observe = () => requests.observe({ route, method: request.method, status }, reply.elapsedTime / 1000);
    if (span) span.within(observe);
    else observe();
    span?.setAttributes({ 'http.response.status_code': reply.statusCode });
    span?.end(reply.statusCode >= 500);
    const fields = {
      method: request.method,
      route,
      status: reply.statusCode,
      duration_ms: Math.round(reply.elapsedTime),
    };
    // The response finishes on the socket's async context: log in the request's.
    withLogContext(contexts.get(request) ?? {}, () =>
      isRoutine(route) ? log.debug('request', fields) : log.info('request', fields),
    );
    done();
  });

  // `?name=<family>` (repeatable) serves only those families, as exporters' `name[]` filters do.
  fastify.get('/metrics', async (request, reply) => {
    if (metricsToken && !bearerTokenMatches(request.headers.authorization, metricsToken))
      return reply
        .status(401)
        .header('www-authenticate', 'Bearer realm="metrics"')
        .send(envelope(401, 'a valid metrics bearer token is required (METRICS_TOKEN)', {}));
    const { name } = (request.query ?? {}) as { name?: unknown };
    const names = name === undefined ? undefined : [name].flat().filter((n): n is string => typeof n === 'string');
    const text = await metrics.exposition(names);
    return reply.header('content-type', metrics.contentType).send(text);
  });
}
