import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Callback {
  /** Which merchant's URL it came to: /merchants/<index>. */
  merchant: number;
  /** Date.now() when the whole body had arrived. */
  at: number;
  headers: Record<string, string>;
  /** The raw body: the signatures cover these bytes. */
  body: string;
  event: string;
  internalReference: string;
  payload: Record<string, unknown>;
}

const flat = (headers: IncomingHttpHeaders) =>
  Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : String(value)]),
  );

/** The merchants' callback endpoints on 127.0.0.1: records every request and answers 200. */
export class CallbackReceiver {
  readonly received: Callback[] = [];

  private readonly server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let parsed: { event?: string; payload?: Record<string, unknown> } = {};
      try {
        parsed = JSON.parse(body);
      } catch {
        // Kept as received; the checker finds it matches no collection.
      }
      const merchant = Number(/^\/merchants\/(\d+)$/.exec(request.url ?? '')?.[1] ?? -1);
      const payload = parsed.payload ?? {};
      this.received.push({
        merchant,
        at: Date.now(),
        headers: flat(request.headers),
        body,
        event: parsed.event ?? '',
        internalReference: String(payload.internal_reference ?? ''),
        payload,
      });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    });
  });

  static async start(): Promise<CallbackReceiver> {
    const receiver = new CallbackReceiver();
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  url(merchant: number): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/merchants/${merchant}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
