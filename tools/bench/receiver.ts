/**
 * The merchant of bench:e2e and bench:money-out: the callback endpoint every collection, refund
 * and payout waits on. A node:http server on 127.0.0.1 that verifies each callback as
 * docs/webhooks.md tells merchants to (Standard Webhooks signature and the hmac-signature header)
 * and settles the item its final callback names.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyCallbackSignature, verifyStandardWebhook } from '@paygate/signing';

export type Outcome = { at: number } | { failure: 'lost' | 'not COMPLETED' };

/** The callback that ends each kind of item, and the payload fields that name the item and say its status. */
const FINAL_EVENTS = {
  'transaction.completed': { reference: 'merchant_reference', status: 'transaction_status' },
  'refund.completed': { reference: 'refund_reference', status: 'status' },
  'payout.completed': { reference: 'payout_reference', status: 'status' },
} as const;
export type FinalEvent = keyof typeof FINAL_EVENTS;

/** Callbacks that settled no item, or failed verification. */
export interface CallbackCounts {
  badSignature: number;
  unparseable: number;
  duplicates: number;
  /** For items whose request was answered with an error: made after all. */
  afterRefusal: number;
  unknown: number;
  otherEvents: Map<string, number>;
}
const noCounts = (): CallbackCounts => ({
  badSignature: 0,
  unparseable: 0,
  duplicates: 0,
  afterRefusal: 0,
  unknown: 0,
  otherEvents: new Map(),
});

const isFinalEvent = (event: string): event is FinalEvent => Object.hasOwn(FINAL_EVENTS, event);
const key = (event: FinalEvent, reference: string) => `${event} ${reference}`;

/**
 * The merchant's callback endpoint: verifies each callback with the merchant's signing key
 * (answering 401 when it does not verify, as a merchant should) and settles the item that waits
 * for it: a collection by its merchant_reference, a refund or payout by its own reference.
 */
export class Receiver {
  signingKey = '';
  private counts = noCounts();
  private readonly waiting = new Map<string, (outcome: Outcome) => void>();
  private readonly settled = new Set<string>();
  private readonly refused = new Set<string>();

  private constructor(
    private readonly server: Server,
    /** A callback later than this after its `expect` is lost. */
    readonly drainMs: number,
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

  /** The counts since the last call: each measured load reads its own. */
  takeCounts(): CallbackCounts {
    const counts = this.counts;
    this.counts = noCounts();
    return counts;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/callbacks`;
  }

  /**
   * Resolves with the arrival of `event` for `reference`, or a failure when it does not come within drainMs or is not
   * COMPLETED.
   */
  expect(reference: string, event: FinalEvent = 'transaction.completed'): Promise<Outcome> {
    const waiting = key(event, reference);
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.settle(waiting, { failure: 'lost' }), this.drainMs);
      this.waiting.set(waiting, (outcome) => {
        clearTimeout(timer);
        resolve(outcome);
      });
    });
  }

  /** For an item whose request was refused: nothing should call back. */
  forget(reference: string, event: FinalEvent = 'transaction.completed'): void {
    const waiting = key(event, reference);
    this.settle(waiting, { failure: 'lost' });
    this.settled.delete(waiting);
    this.refused.add(waiting);
  }

  private settle(waiting: string, outcome: Outcome): void {
    const resolve = this.waiting.get(waiting);
    if (!resolve) return;
    this.waiting.delete(waiting);
    this.settled.add(waiting);
    resolve(outcome);
  }

  /** Returns the status to answer. */
  private receive(body: string, headers: IncomingHttpHeaders): number {
    const at = performance.now();
    let callback: { event?: string; payload?: Record<string, unknown> };
    try {
      callback = JSON.parse(body);
    } catch {
      this.counts.unparseable++;
      return 400;
    }
    const flat = Object.fromEntries(
      Object.entries(headers).map(([name, value]) => [name, Array.isArray(value) ? value[0] : value]),
    );
    const { event, payload } = callback;
    if (
      !payload ||
      !verifyStandardWebhook(this.signingKey, flat, body) ||
      !verifyCallbackSignature(this.signingKey, String(event), payload, String(flat['hmac-signature'] ?? ''))
    ) {
      this.counts.badSignature++;
      return 401;
    }
    if (!event || !isFinalEvent(event)) {
      this.counts.otherEvents.set(String(event), (this.counts.otherEvents.get(String(event)) ?? 0) + 1);
      return 200;
    }
    const fields = FINAL_EVENTS[event];
    const waiting = key(event, String(payload[fields.reference]));
    if (this.waiting.has(waiting))
      this.settle(waiting, payload[fields.status] === 'COMPLETED' ? { at } : { failure: 'not COMPLETED' });
    else if (this.settled.has(waiting)) this.counts.duplicates++;
    else if (this.refused.has(waiting)) this.counts.afterRefusal++;
    else this.counts.unknown++;
    return 200;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
