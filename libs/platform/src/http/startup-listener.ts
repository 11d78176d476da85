import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { envelope, RETRY_AFTER_SECONDS } from '../envelope';
import { STARTING_EXPOSITION } from '../metrics/readiness';
import { REQUEST_ID_HEADER, requestIdFrom } from './request-observability';

export interface StartupListener {
  /** The base URL the port answers at (127.0.0.1 for a wildcard host). */
  readonly url: string;
  /** What the app listens on when it takes over the port: the same socket, already accepting. */
  handOver(): { handle: unknown; host: string };
  /** Stops listening (the app never started). */
  close(): Promise<void>;
}

/**
 * The port, from the first moment the process runs: while the app waits for its dependencies,
 * `/health/live` answers 200, `/health/ready` 503 naming what it waits for, `/metrics` `paygate_ready 0` (what
 * /health/ready says, so open like it), and anything else
 * 503 with Retry-After, all in the envelope with an `x-request-id`. Once the app is ready it
 * listens on this very socket (Node's `listen({ handle })`), so there is no moment when
 * connections are refused; answers here close their connection, so no client stays attached.
 */
export async function openStartupListener(
  port: number,
  host: string,
  waitingFor: () => string[],
): Promise<StartupListener> {
  const server = createServer((request, response) => answer(request, response, waitingFor()));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return {
    url: `http://${shownHost}:${address.port}`,
    handOver: () => {
      // The app's server owns the socket from here; connections accepted here are answered here, and every answer
      // closes its connection. None is closed as idle: on Node 26 that would reset one whose request is still unread.
      const handle = (server as Server & { _handle: unknown })._handle;
      return { handle, host };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function answer(request: IncomingMessage, response: ServerResponse, waiting: string[]): void {
  const path = (request.url ?? '/').split('?')[0];
  if (path === '/metrics') {
    response.writeHead(200, {
      'content-type': 'text/plain; version=0.0.4; charset=utf-8',
      'content-length': Buffer.byteLength(STARTING_EXPOSITION),
      connection: 'close',
      [REQUEST_ID_HEADER]: requestIdFrom(request.headers[REQUEST_ID_HEADER]),
    });
    response.end(request.method === 'HEAD' ? undefined : STARTING_EXPOSITION);
    return;
  }
  const waitingText = waiting.length > 0 ? `waiting for ${waiting.join(', ')}` : 'starting';
  const [status, body, headers] =
    path === '/health/live'
      ? [200, { status: 'ok' }, {}]
      : path === '/health/ready'
        ? [503, envelope(503, waitingText, { waiting_for: waiting }), {}]
        : [
            503,
            envelope(503, `the service is starting (${waitingText}); try again shortly`, {}),
            { 'retry-after': String(RETRY_AFTER_SECONDS) },
          ];
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    connection: 'close',
    [REQUEST_ID_HEADER]: requestIdFrom(request.headers[REQUEST_ID_HEADER]),
    ...headers,
  });
  response.end(request.method === 'HEAD' ? undefined : text);
}
