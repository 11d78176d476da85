import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually } from '@paygate/testing';

/** One request as the merchant's endpoint got it: the raw body, the bytes the signatures cover. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A request's headers as the verifiers take them: one string each. */
export const headersOf = (request: ReceivedRequest): Record<string, string | undefined> =>
  Object.fromEntries(
    Object.entries(request.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : value]),
  );

/** A callback's JSON body, or {} when it is not JSON. */
export function bodyOf(request: ReceivedRequest): { event?: string; payload?: Record<string, unknown> } {
  try {
    return JSON.parse(request.body) as { event?: string; payload?: Record<string, unknown> };
  } catch {
    return {};
  }
}

/**
 * The merchant's callback endpoint: a listener on 127.0.0.1 that records every request (method,
 * path, headers, raw body) and answers 200. No schema checks: it keeps what arrived, the test
 * says what it expected.
 */
export class LoopbackReceiver {
  readonly received: ReceivedRequest[] = [];
  private readonly server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      this.received.push({
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    });
  });

  private constructor() {}

  static async start(): Promise<LoopbackReceiver> {
    const receiver = new LoopbackReceiver();
    await new Promise<void>((resolve, reject) => {
      receiver.server.once('error', reject);
      receiver.server.listen(0, '127.0.0.1', resolve);
    });
    return receiver;
  }

  url(path = '/callbacks'): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  /** Waits for the first request, from the `from`-th on, that `matches`. */
  waitFor(
    matches: (request: ReceivedRequest) => boolean,
    what: string,
    { from = 0, timeoutMs = 30_000 }: { from?: number; timeoutMs?: number } = {},
  ): Promise<ReceivedRequest> {
    return eventually(() => this.received.slice(from).find(matches), timeoutMs, what);
  }

  async close(): Promise<void> {
    // Keep-alive connections from the dispatcher would hold close() open.
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
