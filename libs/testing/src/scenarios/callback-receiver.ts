import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { constructEvent, WebhookVerificationError } from 'paygate-node';
import { ResponseValidator, undocumentedCallbacks } from './response-validator';
import { eventually } from './wait';

export interface ReceivedCallback {
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body exactly as received: signatures cover these bytes. */
  body: string;
  event: string;
  payload: Record<string, unknown>;
}

/** A merchant's callback endpoint on 127.0.0.1 that records every request and answers 200. */
export class CallbackReceiver {
  private constructor(
    private readonly server: Server,
    readonly received: ReceivedCallback[],
  ) {}

  static async start(): Promise<CallbackReceiver> {
    const received: ReceivedCallback[] = [];
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let parsed: { event?: string; payload?: Record<string, unknown> } = {};
        try {
          parsed = JSON.parse(body);
        } catch {
          // Recorded as is; the test looking at it will say what is wrong.
        }
        received.push({
          path: request.url ?? '',
          headers: request.headers,
          body,
          event: parsed.event ?? '',
          payload: parsed.payload ?? {},
        });
        undocumentedCallbacks.push(...ResponseValidator.ofDocument().callbackProblems(request.headers, body));
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new CallbackReceiver(server, received);
  }

  url(path = '/callbacks'): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  /** Callbacks about one transaction, in the order they arrived. */
  about(internalReference: string): ReceivedCallback[] {
    return this.received.filter((callback) => callback.payload.internal_reference === internalReference);
  }

  /** Waits until the transaction's callbacks include `event`; returns them all. */
  async waitFor(internalReference: string, event: string, timeoutMs = 30_000): Promise<ReceivedCallback[]> {
    return eventually(
      () =>
        this.about(internalReference).some((callback) => callback.event === event)
          ? this.about(internalReference)
          : undefined,
      timeoutMs,
      `callback ${event} for ${internalReference}`,
    );
  }

  /**
   * Both signatures (docs/webhooks.md) verify against the merchant's signing key, as the merchant package
   * (paygate-node) verifies them.
   */
  static verify(callback: ReceivedCallback, signingKey: string): boolean {
    if (callback.headers['hmac-signature'] === undefined) return false;
    try {
      constructEvent(callback.body, callback.headers, signingKey);
      return true;
    } catch (error) {
      if (error instanceof WebhookVerificationError) return false;
      throw error;
    }
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
