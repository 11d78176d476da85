import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { envelope } from '../envelope';

const answer = (reply: FastifyReply, status: number, message: string) => reply.status(status).send(envelope(status, message, {}));

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

/**
 * A path that some route serves, asked with another method, answers 405 with `Allow` (RFC 9110
 * §15.5.6) instead of the not-found handler's 404, once the request has arrived (as a 404 would
 * be). HEAD is served wherever GET is (Fastify's router adds it), so it is in `Allow` too.
 */
export function answerWrongMethods(fastify: FastifyInstance): void {
  fastify.addHook('preHandler', async (request, reply) => {
    if (!request.is404) return;
    const allowed = fastify.supportedMethods.filter((method) => fastify.findRoute({ method, url: request.url }) !== null);
    if (allowed.length > 0)
      return answer(reply.header('allow', allowed.join(', ')), 405, `${request.method} is not served at this path; ${allowed.join(', ')} are`);
  });
}
