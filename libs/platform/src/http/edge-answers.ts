import type { IncomingMessage } from 'node:http';
import { RouteConfig } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { envelope } from '../envelope';

const answer = (reply: FastifyReply, status: number, message: string) =>
  reply.status(status).send(envelope(status, message, {}));

/**
 * HTTP's own refusals that Node would send bare (no body, no request id) go through Fastify
 * instead, so they get the envelope, `x-request-id`, a log line and a metric like any answer: an
 * `Expect` other than 100-continue (417) and an HTTP/1.1 request without `Host` (400, RFC 9112
 * §3.2; the server must be created with `requireHostHeader: false`). Their bodies are not read,
 * so the connection closes after the answer.
 */
export function answerProtocolRefusals(fastify: FastifyInstance): void {
  const unmetExpectations = new WeakSet<IncomingMessage>();
  // Node emits this instead of 'request' for such an Expect, and answers it bare when nobody listens.
  fastify.server.on('checkExpectation', (request: IncomingMessage, response) => {
    unmetExpectations.add(request);
    fastify.server.emit('request', request, response);
  });
  fastify.addHook('onRequest', async (request, reply) => {
    const refusal: [number, string] | undefined = unmetExpectations.has(request.raw)
      ? [417, 'the only expectation served is Expect: 100-continue']
      : request.raw.httpVersion === '1.1' && request.headers.host === undefined
        ? [400, 'an HTTP/1.1 request must carry a Host header']
        : undefined;
    if (refusal) return answer(reply.header('connection', 'close'), ...refusal);
  });
}

const PATH_PATTERNS = 'pathPatterns';

/**
 * The path parameters a route serves only when they match, each an anchored regular expression
 * (the pattern the OpenAPI document gives, e.g. `{ internal_reference: '^PG[0-9A-HJKMNP-TV-Z]{24}$' }`).
 * A value that cannot be, say, a reference is then not a lookup of one: the request is answered
 * as no route of its method serves the path (404, or 405 naming what does: `GET
 * /v1/collections/initialize` is not a collection named "initialize" but a POST-only path).
 * Checked after the input guard, so text it refuses is still a 400 naming the parameter.
 */
export const PathPatterns = (patterns: Record<string, string>) => RouteConfig({ [PATH_PATTERNS]: patterns });

interface PatternedRoute {
  method: string;
  /** The route's path with each parameter as `[^/]+`: which route Fastify found for a URL. */
  shape: RegExp;
  names: string;
  patterns: [string, RegExp][];
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const namesOf = (params: object) => Object.keys(params).sort().join(',');

/**
 * Which methods serve a URL: Fastify's router, less the routes whose path patterns the URL's
 * parameters fail. Fastify's `findRoute` gives a method's parameters but not its route, so the
 * routes with patterns are recorded as they are added and recognised by their shape.
 */
export class ServedRoutes {
  private readonly patterned: PatternedRoute[] = [];

  constructor(private readonly fastify: FastifyInstance) {
    fastify.addHook('onRoute', (route) => {
      const patterns = (route.config as Record<string, unknown> | undefined)?.[PATH_PATTERNS] as
        Record<string, string> | undefined;
      if (!patterns) return;
      const names = [...route.url.matchAll(/:(\w+)/g)].map((match) => match[1]);
      const shape = new RegExp(`^${route.url.split(/:\w+/).map(escapeRegExp).join('[^/]+')}$`);
      for (const method of [route.method].flat())
        this.patterned.push({
          method,
          shape,
          names: names.sort().join(','),
          patterns: Object.entries(patterns).map(([name, pattern]) => [name, new RegExp(pattern, 'u')]),
        });
    });
  }

  /** True when the request reached a route whose path patterns its parameters match. */
  serves(request: FastifyRequest): boolean {
    return !request.is404 && this.fits(request.method, pathOf(request.url), request.params as Record<string, string>);
  }

  /** The methods some route serves at `url`, HEAD wherever GET is (Fastify's router adds it). */
  methodsAt(url: string): string[] {
    return this.fastify.supportedMethods.filter((method) => {
      const found = this.fastify.findRoute({ method, url });
      return found !== null && this.fits(method, pathOf(url), found.params as Record<string, string>);
    });
  }

  private fits(method: string, path: string, params: Record<string, string>): boolean {
    const verb = method === 'HEAD' ? 'GET' : method;
    const names = namesOf(params);
    const route = this.patterned.find(
      (candidate) => candidate.method === verb && candidate.names === names && candidate.shape.test(path),
    );
    return route === undefined || route.patterns.every(([name, pattern]) => pattern.test(params[name]));
  }
}

const pathOf = (url: string) => url.split('?', 1)[0];

/**
 * Resolves once the request's body has arrived and been thrown away: true, or false as soon as it
 * passes `limit` bytes (the rest is left to the closing connection). A body that stops short is
 * the request deadline's to answer (408), so a request never gets two answers.
 */
function discardBody(raw: IncomingMessage, limit: number): Promise<boolean> {
  if (raw.readableEnded) return Promise.resolve(true);
  return new Promise((resolve) => {
    let received = 0;
    const done = (whole: boolean) => {
      raw.off('data', counted).off('end', ended).off('close', ended);
      resolve(whole);
    };
    const counted = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) done(false);
    };
    const ended = () => done(true);
    raw.on('data', counted).once('end', ended).once('close', ended);
  });
}

/**
 * A request no route serves is answered here, instead of after Fastify's checks of a body for a
 * method nothing serves (a QUERY without Content-Type, an unknown media type): 405 with `Allow`
 * (RFC 9110 §15.5.6) when the path is served with other methods, 404 otherwise. Its body, if
 * any, is read and thrown away first, so the connection stays usable; one over `maxBodyBytes`
 * is not waited for, and its connection is closed. Path and query were checked already
 * (input-guard.ts), and the address's token taken (rate-limit.guard.ts).
 */
export function answerUnservedRequests(fastify: FastifyInstance, routes: ServedRoutes, maxBodyBytes: number): void {
  fastify.addHook('preParsing', async (request, reply) => {
    if (routes.serves(request)) return;
    if (!(await discardBody(request.raw, maxBodyBytes))) void reply.header('connection', 'close');
    const allowed = routes.methodsAt(request.url);
    if (allowed.length === 0) return answer(reply, 404, `Cannot ${request.method} ${request.url}`);
    const served = allowed.join(', ');
    return answer(
      reply.header('allow', served),
      405,
      `${request.method} is not served at this path; ${served} ${allowed.length === 1 ? 'is' : 'are'}`,
    );
  });
}
