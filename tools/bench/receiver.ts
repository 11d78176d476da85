/**
 * bench:e2e's merchant: the callback endpoint every lifecycle waits on. A node:http server on
 * 127.0.0.1 that verifies each callback as docs/webhooks.md tells merchants to (Standard Webhooks
 * signature and the hmac-signature header) and settles the lifecycle of its merchant_reference.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyCollectionSignature, verifyStandardWebhook, type CollectionSignatureFields } from '@paygate/signing';

export type Outcome = { at: number } | { failure: 'lost' | 'not COMPLETED' };

/**
 * The merchant's callback endpoint: verifies each callback with the merchant's signing key
 * (answering 401 when it does not verify, as a merchant should) and settles the lifecycle that
 * waits for its merchant_reference.
 */
export class Receiver {
  signingKey = '';
  readonly counts = {
    badSignature: 0,
    unparseable: 0,
    duplicates: 0,
    unknown: 0,
    otherEvents: new Map<string, number>(),
  };
  private readonly waiting = new Map<string, (outcome: Outcome) => void>();
  private readonly settled = new Set<string>();

  private constructor(
    private readonly server: Server,
    private readonly drainMs: number,
  ) {}

  /** `drainMs`: a callback later than this after its `expect` is lost. */
  static async start(drainMs: number): Promise<Receiver> {
    let receiver: Receiver | undefined = undefined;
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () =>
        response.writeHead(receiver!.receive(Buffer.concat(chunks).toString('utf8'), request.headers)).end(),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver = new Receiver(server, drainMs);
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/callbacks`;
  }

  /** Resolves with the callback's arrival, or a failure when it does not come within drainMs or is not COMPLETED. */
  expect(merchantReference: string): Promise<Outcome> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.settle(merchantReference, { failure: 'lost' }), this.drainMs);
      this.waiting.set(merchantReference, (outcome) => {
        clearTimeout(timer);
        resolve(outcome);
      });
    });
  }

  /** For a lifecycle whose initialize was refused: nothing will call back. */
  forget(merchantReference: string): void {
    this.settle(merchantReference, { failure: 'lost' });
    this.settled.delete(merchantReference);
  }

  private settle(merchantReference: string, outcome: Outcome): void {
    const resolve = this.waiting.get(merchantReference);
    if (!resolve) return;
    this.waiting.delete(merchantReference);
    this.settled.add(merchantReference);
    resolve(outcome);
  }

  /** Returns the status to answer. */
  private receive(body: string, headers: IncomingHttpHeaders): number {
    const at = performance.now();
    let callback: { event?: string; payload?: CollectionSignatureFields };
    try {
      callback = JSON.parse(body);
    } catch {
      this.counts.unparseable++;
      return 400;
    }
    const flat = Object.fromEntries(
      Object.entries(headers).map(([name, value]) => [name, Array.isArray(value) ? value[0] : value]),
    );
    const payload = callback.payload;
    if (
      !payload ||
      !verifyStandardWebhook(this.signingKey, flat, body) ||
      !verifyCollectionSignature(this.signingKey, payload, String(flat['hmac-signature'] ?? ''))
    ) {
      this.counts.badSignature++;
      return 401;
    }
    if (callback.event !== 'transaction.completed') {
      this.counts.otherEvents.set(
        String(callback.event),
        (this.counts.otherEvents.get(String(callback.event)) ?? 0) + 1,
      );
      return 200;
    }
    if (this.waiting.has(payload.merchant_reference))
      this.settle(
        payload.merchant_reference,
        payload.transaction_status === 'COMPLETED' ? { at } : { failure: 'not COMPLETED' },
      );
    else if (this.settled.has(payload.merchant_reference)) this.counts.duplicates++;
    else this.counts.unknown++;
    return 200;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
