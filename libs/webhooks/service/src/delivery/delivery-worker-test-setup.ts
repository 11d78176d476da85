/**
 * Shared setup of the delivery worker specs (delivery-worker.*.spec.ts): merchant endpoints on
 * loopback addresses, deliveries to enqueue, and a dispatcher (queue, history, workers) on a
 * fresh database. Every scenario runs on PGlite, and on PostgreSQL too when STORE_URL names one.
 *
 * Test code (it uses jest's hooks and `expect`): jest does not collect it (not *.spec.ts) and the
 * build leaves it out (tsconfig.build.json).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '@paygate/logging';
import { NO_METRICS } from '@paygate/metrics';
import type { SqlDatabase } from '@paygate/sql';
import { describeOnAllSqlEngines, describeOnSqlEngines, eventually, type SqlEngineUnderTest } from '@paygate/testing';
import { CallbackSender } from './callback-sender';
import type { DeliveryConfig } from './delivery-config';
import { DeliveryHistory, type DeliveryRecord, type DeliveryState } from './delivery-history';
import { DeliveryQueue, type ClaimedDelivery, type DeliveryQueueConfig, type NewDelivery } from './delivery-queue';
import { DeliveryWorker } from './delivery-worker';

export const KEY = 'whsk_worker_spec_key_never_logged';

interface Received {
  webhookId: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export type Handler = (received: Received, response: ServerResponse, request: IncomingMessage) => void;

/** A merchant endpoint on a loopback address; `handle` decides each answer (default 200). */
async function receiver(handle: Handler = (_received, response) => response.end('ok'), host = '127.0.0.1') {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry = {
        webhookId: String(request.headers['webhook-id']),
        headers: request.headers,
        body: Buffer.concat(chunks),
      };
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

/**
 * Answers by how many times this webhook id has been seen: `answers[n]` for the (n+1)th request, the last one after.
 */
export function byAttempt(...answers: Array<(response: ServerResponse, request: IncomingMessage) => void>): Handler {
  const seen = new Map<string, number>();
  return (received, response, request) => {
    const n = seen.get(received.webhookId) ?? 0;
    seen.set(received.webhookId, n + 1);
    answers[Math.min(n, answers.length - 1)](response, request);
  };
}

export const status =
  (code: number, text = `status ${code}`, headers: Record<string, string> = {}) =>
  (response: ServerResponse) =>
    response.writeHead(code, headers).end(text);

let sequence = 0;
export function newDelivery(targetUrl: string | null, overrides: Partial<NewDelivery> = {}): NewDelivery {
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

export function flat(headers: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, String(value)]));
}

export interface DeliveryHarness {
  /** The database of this suite (opened in beforeAll). */
  db(): SqlDatabase;
  /** A merchant endpoint, closed after the test. */
  endpoint(handle?: Handler, host?: string): ReturnType<typeof receiver>;
  /**
   * The delivery queue and history on the suite's database; `claim` claims as a worker would (one
   * that never records), `startWorker` starts a worker, stopped after the test.
   */
  dispatcher(overrides?: Partial<DeliveryConfig & DeliveryQueueConfig>): Promise<{
    queue: DeliveryQueue;
    history: DeliveryHistory;
    claim: (limit: number) => Promise<ClaimedDelivery[]>;
    startWorker: () => DeliveryWorker;
  }>;
  find(webhookId: string): Promise<DeliveryRecord>;
  /** How many times this test's workers looked up a merchant's signing key. */
  keyLookups(): number;
  /** What this test's workers logged, one JSON object (message and fields) per line. */
  logLines(): string[];
  /** The delivery once it is in `state` (polled). */
  settled(webhookId: string, state: DeliveryState, timeoutMs?: number): Promise<DeliveryRecord>;
}

/**
 * Hooks of one suite: the database for all its tests; after each test, endpoints closed, workers
 * stopped, tables emptied, and the signing key checked to be absent from every log line.
 */
function deliveryHarness(openDatabase: () => Promise<SqlEngineUnderTest>): DeliveryHarness {
  let db: SqlDatabase;
  let history: DeliveryHistory;
  let close: () => Promise<void>;
  let receivers: Array<{ close: () => Promise<unknown> }>;
  let workers: DeliveryWorker[];
  let senders: CallbackSender[];
  let logLines: string[];
  let keyLookups = 0;

  beforeAll(async () => {
    ({ db, close } = await openDatabase());
    history = await DeliveryHistory.open(db);
  });
  afterAll(() => close());

  beforeEach(() => {
    receivers = [];
    workers = [];
    senders = [];
    logLines = [];
    keyLookups = 0;
  });
  afterEach(async () => {
    // Receivers close first so that attempts still in flight end at once and workers can stop.
    await Promise.all(receivers.map((opened) => opened.close()));
    await Promise.all(workers.map((worker) => worker.stop()));
    await Promise.all(senders.map((sender) => sender.close()));
    await db.query('delete from webhook_attempts');
    await db.query('delete from webhook_deliveries');
    await db.query(`delete from jobs where queue = 'callbacks'`);
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

  async function dispatcher(overrides: Partial<DeliveryConfig & DeliveryQueueConfig> = {}) {
    const config = {
      timeoutMs: 2_000,
      retrySchedule: [0, 50, 50, 50],
      allowPrivate: true,
      perHostConcurrency: 4,
      maxInFlight: 64,
      tickMs: 20,
      ...overrides,
    };
    const queue = await DeliveryQueue.open(db, config);
    const sender = new CallbackSender(config);
    senders.push(sender);
    const keys = async (merchantId: string) => {
      keyLookups += 1;
      return merchantId === 'merchant-deleted' ? null : KEY;
    };
    const startWorker = () => {
      const worker = new DeliveryWorker({ queue, sql: db, sender, keys, config, log, metrics: NO_METRICS });
      worker.start();
      workers.push(worker);
      return worker;
    };
    return { queue, history, claim: (limit: number) => queue.claim(db, { limit }), startWorker };
  }

  async function find(webhookId: string): Promise<DeliveryRecord> {
    const found = (await history.list({ limit: 10_000 })).find((delivery) => delivery.webhookId === webhookId);
    if (!found) throw new Error(`no delivery ${webhookId}`);
    return found;
  }

  function settled(webhookId: string, state: DeliveryState, timeoutMs = 10_000): Promise<DeliveryRecord> {
    return eventually(
      async () => {
        const delivery = await find(webhookId);
        return delivery.state === state ? delivery : undefined;
      },
      timeoutMs,
      `${webhookId} ${state}`,
    );
  }

  return {
    db: () => db,
    endpoint,
    dispatcher,
    find,
    settled,
    keyLookups: () => keyLookups,
    logLines: () => logLines,
  };
}

/** Declares `scenarios` on every engine: PGlite, SQLite and, when it is configured, PostgreSQL (own schema). */
export function describeDeliveryScenarios(scenarios: (harness: DeliveryHarness) => void): void {
  describeOnAllSqlEngines('callback delivery', 'webhook_delivery', (open) => scenarios(deliveryHarness(open)));
}

/**
 * Declares `scenarios` that meet what a release before the job queue left or still writes: on the engines that
 * release ran on, PGlite and PostgreSQL.
 */
export function describeUpgradeScenarios(scenarios: (harness: DeliveryHarness) => void): void {
  describeOnSqlEngines('callback delivery after an upgrade', 'webhook_upgrade', (open) =>
    scenarios(deliveryHarness(open)),
  );
}
