/**
 * Shared setup of the metrics and logging specs: one in-process Paygate with short timers and a
 * callback receiver, its merchant, the flows they observe, a Prometheus text parser and a
 * capture of everything the process writes to stdout (its JSON log).
 *
 * Test code (it uses jest's `expect`): jest does not collect it (not *.spec.ts) and the build
 * leaves it out (tsconfig.build.json).
 */
import {
  CallbackReceiver,
  cardRequest,
  mobileMoneyRequest,
  payOnCheckoutPage,
  PaygateClient,
  SandboxAdmin,
  TEST_ADMIN_TOKEN,
  topUpWallet,
} from '@paygate/testing';
import type { InProcessPaygate } from '@paygate/standalone';
import { startCallbackTestPaygate } from '../standalone/test-paygate';

export interface ObservedPaygate {
  paygate: InProcessPaygate;
  receiver: CallbackReceiver;
  client: PaygateClient;
  admin: SandboxAdmin;
  close(): Promise<void>;
}

export async function startObservedPaygate(env: Record<string, string> = {}): Promise<ObservedPaygate> {
  const paygate = await startCallbackTestPaygate(env);
  const receiver = await CallbackReceiver.start();
  const client = await PaygateClient.withNewMerchant(
    paygate.url,
    TEST_ADMIN_TOKEN,
    'Observed merchant',
    receiver.url(),
  );
  return {
    paygate,
    receiver,
    client,
    admin: new SandboxAdmin(paygate.url),
    close: async () => {
      await receiver.close();
      await paygate.close();
    },
  };
}

/** Initialize, confirm, and wait for the completed callback; returns the internal reference. */
export async function completedMobileMoney(
  { client, receiver }: ObservedPaygate,
  headers: Record<string, string> = {},
): Promise<string> {
  const init = await client.request('POST', '/v1/collections/initialize', { body: mobileMoneyRequest(), headers });
  expect(init.status).toBe(202);
  const ref = String(init.body.data.internal_reference);
  expect(
    (await client.request('POST', '/v1/collections/confirm', { body: { internal_reference: ref }, headers })).status,
  ).toBe(202);
  await receiver.waitFor(ref, 'transaction.completed');
  return ref;
}

/** A card collection paid on the sandbox's checkout page with `cardNumber`; returns the internal reference. */
export async function paidByCard({ client, receiver }: ObservedPaygate, cardNumber: string): Promise<string> {
  const init = await client.initialize(cardRequest());
  expect(init.status).toBe(202);
  const ref = String(init.body.data.internal_reference);
  const confirm = await client.confirm(ref);
  expect(confirm.status).toBe(202);
  await payOnCheckoutPage(String(confirm.body.data.payment_url), { number: cardNumber });
  await receiver.waitFor(ref, 'transaction.completed');
  return ref;
}

/**
 * Collect-for-payment by mobile money to a paid PRN (the wallet is topped up for the fee); returns the internal
 * reference.
 */
export async function paidPrn({ client, receiver, admin }: ObservedPaygate): Promise<string> {
  await topUpWallet(client.baseUrl, client.merchant.id, 2_000);
  const prn = await admin.createPrn(25_000);
  const accepted = await client.request('POST', '/v1/collections/collect-for-payment', {
    body: mobileMoneyRequest({ amount: 25_000, prn }),
  });
  expect(accepted.status).toBe(202);
  const ref = String(accepted.body.data.internal_reference);
  await receiver.waitFor(ref, 'transaction.charges', 30_000);
  expect((await client.confirm(ref)).status).toBe(202);
  await receiver.waitFor(ref, 'payment.completed', 30_000);
  return ref;
}

/** Samples of a Prometheus text exposition, keyed `name{a="1",b="2"}` (labels sorted). */
export type Samples = Map<string, number>;

export function parseExposition(text: string): Samples {
  const samples: Samples = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels = [...(match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map(
      ([, name, value]) => `${name}="${value}"`,
    );
    samples.set(series(match[1], labels), Number(match[3]));
  }
  return samples;
}

function series(name: string, labels: string[]): string {
  return labels.length === 0 ? name : `${name}{${[...labels].sort().join(',')}}`;
}

/** The key of one series: `sample('x_total', { a: '1' })`. */
export function sample(name: string, labels: Record<string, string> = {}): string {
  return series(
    name,
    Object.entries(labels).map(([label, value]) => `${label}="${value}"`),
  );
}

export async function scrape(baseUrl: string): Promise<Samples> {
  const response = await fetch(`${baseUrl}/metrics`);
  expect(response.status).toBe(200);
  return parseExposition(await response.text());
}

/** How much a series grew between two scrapes (absent counts as 0). */
export const grew = (before: Samples, after: Samples, key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);

/** Everything written to stdout while capturing (the JSON log), not printed. */
export class StdoutCapture {
  readonly lines: string[] = [];
  private original?: typeof process.stdout.write;

  start(): void {
    this.original = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string | Uint8Array) => {
      this.lines.push(
        ...String(chunk)
          .split('\n')
          .filter((line) => line !== ''),
      );
      return true;
    }) as typeof process.stdout.write;
  }

  stop(): void {
    if (this.original) process.stdout.write = this.original;
  }

  /** The log entries (every line the process wrote must be one JSON object). */
  entries(): Record<string, unknown>[] {
    return this.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  }
}
