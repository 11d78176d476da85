import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '@paygate/logging';
import { verifyCollectionSignature, verifyStandardWebhook } from '@paygate/signing';
import { openSqlDatabase, type SqlDatabase } from '@paygate/sql';
import { describeWithService, eventually, uniqueSchema } from '@paygate/testing';
import { Webhook } from 'standardwebhooks';
import { CallbackSender, TARGET_NOT_ALLOWED } from './callback-sender';
import type { DeliveryConfig } from './delivery-config';
import { DeliveryStore, type DeliveryRecord, type DeliveryState, type DeliveryStoreConfig, type NewDelivery } from './delivery-store';
import { DeliveryWorker } from './delivery-worker';

const KEY = 'whsk_worker_spec_key_never_logged';

interface Received {
  webhookId: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

type Handler = (received: Received, response: ServerResponse, request: IncomingMessage) => void;

/** A merchant endpoint on a loopback address; `handle` decides each answer (default 200). */
async function receiver(handle: Handler = (_received, response) => response.end('ok'), host = '127.0.0.1') {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry = { webhookId: String(request.headers['webhook-id']), headers: request.headers, body: Buffer.concat(chunks) };
      received.push(entry);
      handle(entry, response, request);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    received,
    url: (path = '/hook') => `http://${host}:${port}${path}`,
    port,
    countFor: (webhookId: string) => received.filter((entry) => entry.webhookId === webhookId).length,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Answers by how many times this webhook id has been seen: `answers[n]` for the (n+1)th request, the last one after. */
function byAttempt(...answers: Array<(response: ServerResponse, request: IncomingMessage) => void>): Handler {
  const seen = new Map<string, number>();
  return (received, response, request) => {
    const n = seen.get(received.webhookId) ?? 0;
    seen.set(received.webhookId, n + 1);
    answers[Math.min(n, answers.length - 1)](response, request);
  };
}

const status =
  (code: number, text = `status ${code}`, headers: Record<string, string> = {}) =>
  (response: ServerResponse) =>
    response.writeHead(code, headers).end(text);

let sequence = 0;
function newDelivery(targetUrl: string | null, overrides: Partial<NewDelivery> = {}): NewDelivery {
  sequence += 1;
  const internalReference = overrides.internalReference ?? `IR-${sequence}`;
  const payload = {
    id: sequence,
    merchant_reference: `MR-${sequence}`,
    internal_reference: internalReference,
    transaction_status: 'COMPLETED',
    status_message: 'Paid — UGX 81,000 ✓',
  };
  return {
    webhookId: `msg_${randomUUID()}`,
    merchantId: 'merchant-1',
    internalReference,
    sequence: 1,
    eventName: 'transaction.completed',
    targetUrl,
    body: JSON.stringify({ event: 'transaction.completed', payload }),
    ...overrides,
  };
}

function flat(headers: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, String(value)]));
}

function deliveryScenarios(openDatabase: () => Promise<{ db: SqlDatabase; dispose: () => Promise<void> }>) {
  let db: SqlDatabase;
  let dispose: () => Promise<void>;
  let receivers: Array<{ close: () => Promise<unknown> }>;
  let workers: DeliveryWorker[];
  let logLines: string[];

  beforeAll(async () => {
    ({ db, dispose } = await openDatabase());
  });
  afterAll(() => dispose());

  beforeEach(() => {
    receivers = [];
    workers = [];
    logLines = [];
  });
  afterEach(async () => {
    // Receivers close first so that attempts still in flight end at once and workers can stop.
    await Promise.all(receivers.map((opened) => opened.close()));
    await Promise.all(workers.map((worker) => worker.stop()));
    await db.query('delete from webhook_attempts');
    await db.query('delete from webhook_deliveries');
    expect(logLines.join('\n')).not.toContain(KEY);
  });

  const log: Logger = {
    debug: (message, fields) => logLines.push(JSON.stringify({ message, ...fields })),
    info: (message, fields) => logLines.push(JSON.stringify({ message, ...fields })),
    warn: (message, fields) => logLines.push(JSON.stringify({ message, ...fields })),
    error: (message, fields) => logLines.push(JSON.stringify({ message, ...fields })),
    child: () => log,
  };

  async function endpoint(handle?: Handler, host?: string) {
    const opened = await receiver(handle, host);
    receivers.push(opened);
    return opened;
  }

  async function dispatcher(overrides: Partial<DeliveryConfig & DeliveryStoreConfig> = {}) {
    const config = { timeoutMs: 2_000, retrySchedule: [0, 50, 50, 50], allowPrivate: true, perHostConcurrency: 4, tickMs: 20, ...overrides };
    const store = await DeliveryStore.open(db, config);
    const sender = new CallbackSender(config);
    const keys = async (merchantId: string) => (merchantId === 'merchant-deleted' ? null : KEY);
    const startWorker = () => {
      const worker = new DeliveryWorker({ store, sender, keys, config, log });
      worker.start();
      workers.push(worker);
      return worker;
    };
    return { store, startWorker };
  }

  async function find(store: DeliveryStore, webhookId: string): Promise<DeliveryRecord> {
    const found = (await store.list({ limit: 10_000 })).find((delivery) => delivery.webhookId === webhookId);
    if (!found) throw new Error(`no delivery ${webhookId}`);
    return found;
  }

  function settled(store: DeliveryStore, webhookId: string, state: DeliveryState, timeoutMs = 10_000): Promise<DeliveryRecord> {
    return eventually(async () => {
      const delivery = await find(store, webhookId);
      return delivery.state === state ? delivery : undefined;
    }, timeoutMs, `${webhookId} ${state}`);
  }

  it('2xx delivers the exact stored bytes with both signatures; webhook-id stable, webhook-timestamp per attempt', async () => {
    const target = await endpoint(byAttempt(status(500), status(204, '')));
    const { store, startWorker } = await dispatcher({ retrySchedule: [0, 1_500] });
    const delivery = newDelivery(target.url());
    await store.enqueue([delivery]);
    startWorker();

    const done = await settled(store, delivery.webhookId, 'delivered');
    expect(done.attempts.map((attempt) => attempt.statusCode)).toEqual([500, 204]);
    expect(done.deliveredAt).toBeInstanceOf(Date);
    expect(target.received).toHaveLength(2);
    const payload = JSON.parse(delivery.body).payload;
    target.received.forEach((request, index) => {
      expect(request.body.equals(Buffer.from(delivery.body, 'utf8'))).toBe(true);
      expect(request.webhookId).toBe(delivery.webhookId);
      expect(request.headers['content-type']).toBe('application/json');
      expect(verifyCollectionSignature(KEY, payload, String(request.headers['hmac-signature']))).toBe(true);
      expect(verifyStandardWebhook(KEY, flat(request.headers), request.body.toString('utf8'))).toBe(true);
      expect(() => new Webhook(KEY, { format: 'raw' }).verify(request.body.toString('utf8'), flat(request.headers))).not.toThrow();
      expect(Number(request.headers['webhook-timestamp'])).toBe(Math.floor(done.attempts[index].startedAt.getTime() / 1_000));
    });
    expect(Number(target.received[1].headers['webhook-timestamp'])).toBeGreaterThan(Number(target.received[0].headers['webhook-timestamp']));
  });

  it('a receiver that hangs: every attempt times out, is retried on schedule, then the delivery is abandoned', async () => {
    const target = await endpoint(() => undefined);
    const { store, startWorker } = await dispatcher({ timeoutMs: 300, retrySchedule: [0, 50, 50] });
    const delivery = newDelivery(target.url());
    await store.enqueue([delivery]);
    startWorker();

    const abandoned = await settled(store, delivery.webhookId, 'abandoned');
    expect(abandoned.attempts).toHaveLength(3);
    for (const attempt of abandoned.attempts) {
      expect(attempt.statusCode).toBeNull();
      expect(attempt.error).toBe('timed out after 300 ms');
      expect(attempt.durationMs).toBeGreaterThanOrEqual(290);
    }
    expect(target.countFor(delivery.webhookId)).toBe(3);
  });

  it('a connection reset is a failed attempt, and the retry delivers', async () => {
    const target = await endpoint(byAttempt((_response, request) => request.socket.destroy(), status(200)));
    const { store, startWorker } = await dispatcher();
    const delivery = newDelivery(target.url());
    await store.enqueue([delivery]);
    startWorker();

    const done = await settled(store, delivery.webhookId, 'delivered');
    expect(done.attempts.map((attempt) => [attempt.statusCode, attempt.error === null])).toEqual([
      [null, false],
      [200, true],
    ]);
  });

  it('500 forever: abandoned after the schedule, every attempt recorded with its status and excerpt', async () => {
    const target = await endpoint(byAttempt(status(500, '{"error":"upstream exploded"}')));
    const { store, startWorker } = await dispatcher({ retrySchedule: [0, 50, 50, 50] });
    const delivery = newDelivery(target.url());
    await store.enqueue([delivery]);
    startWorker();

    const abandoned = await settled(store, delivery.webhookId, 'abandoned');
    expect(abandoned.attempts.map(({ attempt, statusCode, responseExcerpt, error }) => ({ attempt, statusCode, responseExcerpt, error }))).toEqual(
      [1, 2, 3, 4].map((attempt) => ({ attempt, statusCode: 500, responseExcerpt: '{"error":"upstream exploded"}', error: null })),
    );
    expect(abandoned).toMatchObject({ lastStatus: 500, attemptsInRound: 4 });
    expect(target.received).toHaveLength(4);
  });

  it('200 after two failures: delivered on the third attempt', async () => {
    const target = await endpoint(byAttempt(status(503), status(502), status(200)));
    const { store, startWorker } = await dispatcher();
    const delivery = newDelivery(target.url());
    await store.enqueue([delivery]);
    startWorker();

    const done = await settled(store, delivery.webhookId, 'delivered');
    expect(done.attempts.map((attempt) => attempt.statusCode)).toEqual([503, 502, 200]);
    expect(target.received).toHaveLength(3);
  });

  it('a redirect is a failure and is never followed', async () => {
    const elsewhere = await endpoint();
    const location = { location: elsewhere.url('/stolen') };
    const target = await endpoint(byAttempt(status(301, 'moved', location), status(302, 'found', location)));
    const { store, startWorker } = await dispatcher({ retrySchedule: [0, 50] });
    const delivery = newDelivery(target.url());
    await store.enqueue([delivery]);
    startWorker();

    const abandoned = await settled(store, delivery.webhookId, 'abandoned');
    expect(abandoned.attempts.map((attempt) => attempt.statusCode)).toEqual([301, 302]);
    expect(elsewhere.received).toHaveLength(0);
  });

  it('a huge or endless response body is cut at 1 KiB and does not hold the attempt', async () => {
    const endless = await endpoint((_received, response) => {
      response.writeHead(200);
      const more = () => {
        while (response.write(Buffer.alloc(64 * 1024, 'x')));
      };
      response.on('drain', more);
      more();
    });
    const huge = await endpoint((_received, response) => response.writeHead(500).end(Buffer.alloc(50 * 1024 * 1024, 'y')));
    const { store, startWorker } = await dispatcher({ retrySchedule: [0], timeoutMs: 5_000 });
    const toEndless = newDelivery(endless.url());
    const toHuge = newDelivery(huge.url());
    await store.enqueue([toEndless, toHuge]);
    startWorker();

    const delivered = await settled(store, toEndless.webhookId, 'delivered');
    const abandoned = await settled(store, toHuge.webhookId, 'abandoned');
    for (const attempt of [...delivered.attempts, ...abandoned.attempts]) {
      expect(attempt.error).toBeNull();
      expect(attempt.responseExcerpt.length).toBeGreaterThan(0);
      expect(Buffer.byteLength(attempt.responseExcerpt)).toBeLessThanOrEqual(1_024);
    }
    expect(abandoned.attempts[0].statusCode).toBe(500);
  });

  it('410 Gone: abandoned after one attempt', async () => {
    const target = await endpoint(byAttempt(status(410, 'gone')));
    const { store, startWorker } = await dispatcher();
    const delivery = newDelivery(target.url());
    await store.enqueue([delivery]);
    startWorker();

    const abandoned = await settled(store, delivery.webhookId, 'abandoned');
    expect(abandoned.attempts.map((attempt) => attempt.statusCode)).toEqual([410]);
    expect(target.received).toHaveLength(1);
  });

  it('Retry-After: 2 puts the next attempt at least ~2 s away, past a shorter schedule step', async () => {
    const target = await endpoint(byAttempt(status(503, 'busy', { 'retry-after': '2' })));
    const { store, startWorker } = await dispatcher({ retrySchedule: [0, 50, 50] });
    const delivery = newDelivery(target.url());
    await store.enqueue([delivery]);
    startWorker();

    const waiting = await eventually(async () => {
      const found = await find(store, delivery.webhookId);
      return found.attempts.length === 1 && found.state === 'pending' ? found : undefined;
    });
    // Measured from the attempt rather than from now, which a busy test machine would make late.
    expect(waiting.nextAttemptAt.getTime()).toBeGreaterThanOrEqual(waiting.attempts[0].startedAt.getTime() + 1_900);
  });

  it('keeps one transaction’s callbacks to one URL in order, without holding up another transaction', async () => {
    const arrivals: Array<{ webhookId: string; status: number }> = [];
    let ordered: NewDelivery[] = [];
    const target = await endpoint((received, response) => {
      const first = ordered[0].webhookId;
      const code = received.webhookId === first && arrivals.filter((entry) => entry.webhookId === first).length < 2 ? 500 : 200;
      arrivals.push({ webhookId: received.webhookId, status: code });
      response.writeHead(code).end();
    });
    ordered = [
      newDelivery(target.url(), { internalReference: 'IR-ordered', sequence: 1, eventName: 'transaction.charges' }),
      newDelivery(target.url(), { internalReference: 'IR-ordered', sequence: 2 }),
      newDelivery(target.url(), { internalReference: 'IR-ordered', sequence: 3 }),
    ];
    const other = newDelivery(target.url(), { internalReference: 'IR-other' });
    const { store, startWorker } = await dispatcher();
    await store.enqueue([...ordered, other]);
    startWorker();

    for (const delivery of [...ordered, other]) await settled(store, delivery.webhookId, 'delivered');
    const [a, b, c] = ordered.map((delivery) => delivery.webhookId);
    expect(arrivals.filter((entry) => entry.webhookId !== other.webhookId)).toEqual([
      { webhookId: a, status: 500 },
      { webhookId: a, status: 500 },
      { webhookId: a, status: 200 },
      { webhookId: b, status: 200 },
      { webhookId: c, status: 200 },
    ]);
    const delivered = (webhookId: string) => arrivals.findIndex((entry) => entry.webhookId === webhookId && entry.status === 200);
    expect(delivered(other.webhookId)).toBeLessThan(delivered(a));
  });

  it('a host that hangs holds only its own slots: another host’s deliveries all arrive meanwhile', async () => {
    const slow = await endpoint(() => undefined, '127.0.0.2');
    const fast = await endpoint(undefined, '127.0.0.1');
    const { store, startWorker } = await dispatcher({ timeoutMs: 10_000, perHostConcurrency: 2 });
    const toSlow = Array.from({ length: 10 }, () => newDelivery(slow.url()));
    const toFast = Array.from({ length: 10 }, () => newDelivery(fast.url()));
    await store.enqueue(toSlow);
    await store.enqueue(toFast);
    startWorker();

    for (const delivery of toFast) await settled(store, delivery.webhookId, 'delivered');
    const slowStates = (await store.list({ limit: 100 })).filter((delivery) => delivery.targetHost === '127.0.0.2').map((delivery) => delivery.state);
    expect(slowStates.filter((state) => state === 'delivering')).toHaveLength(2);
    expect(slowStates.filter((state) => state === 'pending')).toHaveLength(8);
    expect(fast.received).toHaveLength(10);
  });

  it('a callback without a target is recorded as undeliverable, never sent, and the worker carries on', async () => {
    const target = await endpoint();
    const { store, startWorker } = await dispatcher();
    const nowhere = newDelivery(null);
    const somewhere = newDelivery(target.url());
    await store.enqueue([nowhere]);
    startWorker();
    await store.enqueue([somewhere]);

    await settled(store, somewhere.webhookId, 'delivered');
    expect(await find(store, nowhere.webhookId)).toMatchObject({ state: 'undeliverable', attempts: [], lastError: 'no callback URL' });
    expect(target.received.map((request) => request.webhookId)).toEqual([somewhere.webhookId]);
  });

  it('refuses loopback targets unless private callbacks are allowed, and never sends to non-HTTP URLs', async () => {
    const target = await endpoint();
    const { store, startWorker } = await dispatcher({ allowPrivate: false, retrySchedule: [0, 50] });
    const byAddress = newDelivery(target.url());
    const byName = newDelivery(`http://localhost:${target.port}/hook`);
    const ftp = newDelivery(`ftp://127.0.0.1:${target.port}/hook`);
    await store.enqueue([byAddress, byName, ftp]);
    startWorker();

    for (const delivery of [byAddress, byName]) {
      const abandoned = await settled(store, delivery.webhookId, 'abandoned');
      expect(abandoned.attempts.map((attempt) => attempt.error)).toEqual([TARGET_NOT_ALLOWED, TARGET_NOT_ALLOWED]);
    }
    expect(await find(store, ftp.webhookId)).toMatchObject({ state: 'undeliverable', attempts: [], lastError: 'callback URL is not http: or https:' });
    expect(target.received).toHaveLength(0);
  });

  it('a merchant without a signing key gets a failed attempt, nothing is sent', async () => {
    const target = await endpoint();
    const { store, startWorker } = await dispatcher({ retrySchedule: [0] });
    const delivery = newDelivery(target.url(), { merchantId: 'merchant-deleted' });
    await store.enqueue([delivery]);
    startWorker();

    const abandoned = await settled(store, delivery.webhookId, 'abandoned');
    expect(abandoned.attempts.map((attempt) => attempt.error)).toEqual(['merchant has no signing key']);
    expect(target.received).toHaveLength(0);
  });

  it('enqueue is idempotent on the webhook id: a redelivered event sends one callback', async () => {
    const target = await endpoint();
    const { store, startWorker } = await dispatcher();
    const delivery = newDelivery(target.url());
    await store.enqueue([delivery]);
    await store.enqueue([delivery, { ...delivery, body: '{"changed":true}' }]);
    startWorker();

    await settled(store, delivery.webhookId, 'delivered');
    expect(await store.list({ limit: 100 })).toHaveLength(1);
    expect(target.received.map((request) => request.body.toString('utf8'))).toEqual([delivery.body]);
  });

  it('two workers on one store deliver 200 callbacks, each received exactly once', async () => {
    const target = await endpoint();
    const { store, startWorker } = await dispatcher({ perHostConcurrency: 16 });
    const deliveries = Array.from({ length: 200 }, () => newDelivery(target.url()));
    await store.enqueue(deliveries);
    startWorker();
    startWorker();

    await eventually(async () => {
      const [{ delivered }] = await db.query<{ delivered: number }>(`select count(*)::int as delivered from webhook_deliveries where state = 'delivered'`);
      return delivered === 200 ? true : undefined;
    }, 30_000, '200 delivered');
    const counts = new Map<string, number>();
    for (const request of target.received) counts.set(request.webhookId, (counts.get(request.webhookId) ?? 0) + 1);
    expect(counts.size).toBe(200);
    expect([...counts.values()].every((count) => count === 1)).toBe(true);
    expect((await store.list({ limit: 1_000 })).every((delivery) => delivery.attempts.length === 1)).toBe(true);
  });

  it('a claim that is never finished is taken over after its lease; the stale claimer then changes nothing', async () => {
    const target = await endpoint();
    const { store, startWorker } = await dispatcher({ timeoutMs: 300, leaseMarginMs: 200 });
    const delivery = newDelivery(target.url());
    await store.enqueue([delivery]);
    const [stale] = await store.claimDue(10);
    expect(stale.webhookId).toBe(delivery.webhookId);
    const { leaseUntil } = await find(store, delivery.webhookId);
    startWorker();

    const done = await settled(store, delivery.webhookId, 'delivered');
    expect(done.attempts[0].startedAt.getTime()).toBeGreaterThanOrEqual(leaseUntil!.getTime());
    expect(target.received).toHaveLength(1);

    const outcome = { startedAt: new Date(), durationMs: 5, statusCode: 500, responseExcerpt: 'late' };
    expect(await store.recordAttempt(stale, outcome)).toBeUndefined();
    const after = await find(store, delivery.webhookId);
    expect(after.state).toBe('delivered');
    expect(after.attempts.map((attempt) => [attempt.attempt, attempt.statusCode])).toEqual([
      [1, 200],
      [2, 500],
    ]);
  });

  it('resend sends a delivered callback again with the same webhook id and a new attempt', async () => {
    const target = await endpoint();
    const { store, startWorker } = await dispatcher();
    const delivery = newDelivery(target.url(), { internalReference: 'IR-resend' });
    await store.enqueue([delivery]);
    const worker = startWorker();
    await settled(store, delivery.webhookId, 'delivered');

    expect(await store.resend('another-merchant', 'IR-resend')).toBe(0);
    expect(await store.resend(delivery.merchantId, 'IR-resend')).toBe(1);
    worker.notify();
    const again = await eventually(async () => {
      const found = await find(store, delivery.webhookId);
      return found.state === 'delivered' && found.attempts.length === 2 ? found : undefined;
    });
    expect(again.attempts.map((attempt) => attempt.attempt)).toEqual([1, 2]);
    expect(target.received.map((request) => request.webhookId)).toEqual([delivery.webhookId, delivery.webhookId]);
  });

  it('retryAbandoned gives abandoned deliveries a new schedule', async () => {
    const target = await endpoint(byAttempt(status(410), status(200)));
    const { store, startWorker } = await dispatcher({ retrySchedule: [0] });
    const one = newDelivery(target.url());
    const two = newDelivery(target.url());
    await store.enqueue([one, two]);
    startWorker();
    await settled(store, one.webhookId, 'abandoned');
    await settled(store, two.webhookId, 'abandoned');

    expect(await store.retryAbandoned(['msg_unknown'])).toBe(0);
    expect(await store.retryAbandoned([one.webhookId])).toBe(1);
    const revived = await settled(store, one.webhookId, 'delivered');
    expect(revived.attempts.map((attempt) => attempt.statusCode)).toEqual([410, 200]);
    expect(await store.retryAbandoned()).toBe(1);
    await settled(store, two.webhookId, 'delivered');
  });

  it('notify() sends a new delivery at once, without waiting for the tick', async () => {
    const target = await endpoint();
    const { store, startWorker } = await dispatcher({ tickMs: 600_000 });
    const worker = startWorker();
    const delivery = newDelivery(target.url());
    await store.enqueue([delivery]);
    worker.notify();

    await settled(store, delivery.webhookId, 'delivered', 5_000);
  });

  it('stop() waits for the attempts in flight to be sent and recorded', async () => {
    const target = await endpoint((_received, response) => setTimeout(() => response.end('slowly'), 200));
    const { store, startWorker } = await dispatcher({ timeoutMs: 5_000 });
    const delivery = newDelivery(target.url());
    await store.enqueue([delivery]);
    const worker = startWorker();
    await eventually(() => (target.received.length === 1 ? true : undefined));

    await worker.stop();
    expect(await find(store, delivery.webhookId)).toMatchObject({ state: 'delivered', lastStatus: 200 });
  });
}

describe('webhook delivery on PGlite', () => {
  deliveryScenarios(async () => {
    const db = await openSqlDatabase('pglite://memory');
    return { db, dispose: () => db.close() };
  });
});

describeWithService('postgres', 'webhook delivery on PostgreSQL', (url) => {
  deliveryScenarios(async () => {
    const schema = uniqueSchema('webhook_delivery');
    const withSchema = new URL(url);
    withSchema.searchParams.set('schema', schema);
    const db = await openSqlDatabase(withSchema.toString());
    return {
      db,
      dispose: async () => {
        await db.query(`drop schema ${schema} cascade`);
        await db.close();
      },
    };
  });
});
