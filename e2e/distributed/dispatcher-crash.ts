/**
 * The webhook dispatcher as its own process, without Kafka (BROKER_URL=inproc://: its consumer is
 * a catch-up subscription on the event store with its checkpoint in SQL). Collection events are
 * appended straight into a PostgreSQL schema's event store, as the collections service would,
 * and local receivers record every callback they get.
 *
 * - kill -9 mid-burst, then restart: every callback arrives at least once, charges before
 *   completed per transaction, nothing recorded as delivered at the kill is sent again, and
 *   every delivery ends delivered;
 * - two dispatchers at once, nothing dying: they share the work and every callback arrives
 *   exactly once.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectionStream } from '@paygate/contracts';
import { openEventStore, type EventStore } from '@paygate/event-store';
import { MerchantAccounts, SecretBox } from '@paygate/merchants';
import { openSqlDatabase, postgresUrlInSchema, type SqlDatabase } from '@paygate/sql';
import { describeWithService, dropSchemas, eventually, TEST_MASTER_KEY, uniqueSchema } from '@paygate/testing';
import { newCollectionReference, paidCollectionEvents, withPublished } from '@paygate/tools-local';
import { ensureBuilt, startApp, type AppProcess } from './processes';

const TRANSACTIONS = 300;
const CALLBACKS = TRANSACTIONS * 2;
/**
 * One receiver per loopback address: the dispatcher caps attempts in flight per host, so three hosts put more in flight
 * at once.
 */
const HOSTS = ['127.0.0.1', '127.0.0.2', '127.0.0.3'];
const CHARGES = 'transaction.charges';
const COMPLETED = 'transaction.completed';

interface Receipt {
  webhookId: string;
  event: string;
  internalReference: string;
  /** Arrival order across all receivers. */
  order: number;
  /** Date.now() when the request body had arrived. */
  at: number;
}

/**
 * Merchants' endpoints that record each callback on arrival and answer 200 only after 10–100 ms,
 * so that attempts are in flight whenever the dispatcher dies.
 */
class Receivers {
  readonly receipts: Receipt[] = [];
  /** Called synchronously on every arrival: the crash test kills the dispatcher from here, at an exact count. */
  onReceipt?: (receipt: Receipt) => void;
  private readonly servers: Server[] = [];

  static async start(hosts: string[]): Promise<Receivers> {
    const receivers = new Receivers();
    for (const host of hosts) {
      const server = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
            event: string;
            payload: { internal_reference: string };
          };
          const receipt: Receipt = {
            webhookId: String(request.headers['webhook-id']),
            event: body.event,
            internalReference: body.payload.internal_reference,
            order: receivers.receipts.length,
            at: Date.now(),
          };
          receivers.receipts.push(receipt);
          receivers.onReceipt?.(receipt);
          // The sender may be dead by now; answering a closed socket is harmless.
          setTimeout(
            () => response.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}'),
            10 + Math.random() * 90,
          );
        });
      });
      await new Promise<void>((resolve) => server.listen(0, host, resolve));
      receivers.servers.push(server);
    }
    return receivers;
  }

  urls(): string[] {
    return this.servers.map((server) => {
      const { address, port } = server.address() as AddressInfo;
      return `http://${address}:${port}/callbacks`;
    });
  }

  countsById(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const receipt of this.receipts) counts.set(receipt.webhookId, (counts.get(receipt.webhookId) ?? 0) + 1);
    return counts;
  }

  async close(): Promise<void> {
    for (const server of this.servers) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }
}

interface Expected {
  /** webhook id → internal reference and callback event. */
  byId: Map<string, { internalReference: string; event: string }>;
  references: string[];
}

/**
 * Appends TRANSACTIONS collections, eight at a time, spread over the merchants; returns the callbacks they must cause.
 */
async function appendBurst(store: EventStore, merchantIds: string[]): Promise<Expected> {
  const expected: Expected = { byId: new Map(), references: [] };
  let next = 0;
  const appendOne = async (n: number) => {
    const reference = newCollectionReference();
    const { initiated, rest } = paidCollectionEvents(merchantIds[n % merchantIds.length], reference, n + 1, 'crash');
    const opened = withPublished([initiated], null);
    const settled = withPublished(rest, opened.after);
    // The dispatcher derives the webhook id from the published event's id: msg_<event id>.
    expected.byId.set(`msg_${opened.published[0].id}`, { internalReference: reference, event: CHARGES });
    expected.byId.set(`msg_${settled.published[0].id}`, { internalReference: reference, event: COMPLETED });
    expected.references.push(reference);
    await store.appendToStream(collectionStream(reference), [...opened.domain, ...opened.published], {
      expectedRevision: 'no_stream',
    });
    await store.appendToStream(collectionStream(reference), [...settled.domain, ...settled.published], {
      expectedRevision: 1,
    });
  };
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < TRANSACTIONS) await appendOne(next++);
    }),
  );
  return expected;
}

/**
 * Dispatcher processes on a shared PostgreSQL store: killed mid-burst, and two at once. Declared
 * from distributed.spec.ts, whose file always holds tests, so a run without PostgreSQL declares
 * nothing here instead of an empty test file.
 */
export function dispatcherCrashSuites(): void {
  describeWithService(
    'postgres',
    'webhook dispatcher processes: crash and shared work (PostgreSQL, no broker)',
    (postgres) => {
      const schemas: string[] = [];
      const apps: AppProcess[] = [];
      const opened: Array<{ db: SqlDatabase; receivers: Receivers }> = [];

      beforeAll(() => ensureBuilt(), 180_000);

      afterAll(async () => {
        // SIGKILL: nothing to drain, and a dispatcher stuck in a failed test must not hang the suite.
        await Promise.all(apps.map((app) => app.stop('SIGKILL')));
        for (const { db, receivers } of opened) {
          await receivers.close();
          await db.close();
        }
        await dropSchemas(postgres, schemas);
      }, 30_000);

      /** A fresh schema with its event store, one merchant per receiver host, and the dispatcher's environment. */
      async function setUp(prefix: string, logLevel: 'error' | 'debug') {
        const schema = uniqueSchema(prefix);
        schemas.push(schema);
        const storeUrl = postgresUrlInSchema(postgres, schema);
        const db = await openSqlDatabase(storeUrl);
        const receivers = await Receivers.start(HOSTS);
        opened.push({ db, receivers });
        const store = await openEventStore(db);
        const merchants = await MerchantAccounts.open(db, SecretBox.fromMasterKey(TEST_MASTER_KEY));
        const merchantIds: string[] = [];
        for (const [i, url] of receivers.urls().entries()) {
          merchantIds.push(
            (await merchants.create({ name: `Crash merchant ${i}`, collectionCallbackUrl: url })).merchant.id,
          );
        }
        const env = {
          STORE_URL: storeUrl,
          EVENT_STORE_URL: '',
          BROKER_URL: 'inproc://',
          MASTER_KEY: TEST_MASTER_KEY,
          ALLOW_PRIVATE_CALLBACKS: 'true',
          // The lease is the timeout plus 5 s: a short timeout lets the restarted dispatcher take over the dead one's
          // claims within ~7 s.
          CALLBACK_TIMEOUT_MS: '2000',
          CALLBACK_RETRY_SCHEDULE: '0,200,500,1000',
          CALLBACK_CONCURRENCY_PER_HOST: '16',
          DISPATCH_TICK_MS: '50',
          LOG_LEVEL: logLevel,
        };
        const states = async () =>
          Object.fromEntries(
            (
              await db.query<{ state: string; count: number }>(
                'select state, count(*)::int as count from webhook_deliveries group by state',
              )
            ).map((row) => [row.state, row.count]),
          );
        return { db, store, receivers, merchantIds, env, states };
      }

      it('kill -9 mid-burst, then a restart: at least once, in order, nothing acknowledged sent again', async () => {
        const { db, store, receivers, merchantIds, env, states } = await setUp('e2e_dispatcher_crash', 'error');
        // Started before the burst, so the kill below is armed before the first callback can arrive.
        const first = await startApp('webhook-dispatcher', env);
        apps.push(first);

        let killedAt: number | undefined;
        receivers.onReceipt = () => {
          if (killedAt === undefined && receivers.receipts.length >= Math.round(CALLBACKS / 3)) {
            first.child.kill('SIGKILL');
            killedAt = Date.now();
          }
        };
        const expected = await appendBurst(store, merchantIds);
        await eventually(() => killedAt, 60_000, 'a third of the callbacks before the kill');
        await first.stop('SIGKILL'); // waits for the exit
        const deliveredAtKill = new Set(
          (
            await db.query<{ webhook_id: string }>(
              `select webhook_id from webhook_deliveries where state = 'delivered'`,
            )
          ).map((row) => row.webhook_id),
        );
        const atKill = await states();
        const receivedAtKill = receivers.receipts.length;
        // Acknowledged and recorded, or the test proves nothing about re-sending.
        expect(deliveredAtKill.size).toBeGreaterThan(0);
        expect(deliveredAtKill.size).toBeLessThan(CALLBACKS);

        const restartedAt = Date.now();
        const second = await startApp('webhook-dispatcher', env);
        apps.push(second);

        await eventually(
          () => ([...expected.byId.keys()].every((id) => receivers.countsById().has(id)) ? true : undefined),
          90_000,
          'every callback received',
        );
        await eventually(
          async () => ((await states()).delivered === CALLBACKS ? true : undefined),
          30_000,
          `all ${CALLBACKS} deliveries delivered`,
        );

        // Nothing but the expected callbacks, and each with the event its webhook id stands for.
        for (const receipt of receivers.receipts) {
          expect(expected.byId.get(receipt.webhookId)).toEqual({
            internalReference: receipt.internalReference,
            event: receipt.event,
          });
        }
        // Order: per transaction, the first charges arrived before the first completed.
        const firstArrival = new Map<string, number>();
        for (const receipt of receivers.receipts) {
          const key = `${receipt.internalReference} ${receipt.event}`;
          if (!firstArrival.has(key)) firstArrival.set(key, receipt.order);
        }
        const outOfOrder = expected.references.filter(
          (reference) =>
            !(firstArrival.get(`${reference} ${CHARGES}`)! < firstArrival.get(`${reference} ${COMPLETED}`)!),
        );
        expect(outOfOrder).toEqual([]);
        // Delivered at the kill means acknowledged and recorded: the restart must never send it again.
        const resentAfterRestart = receivers.receipts.filter(
          (receipt) => receipt.at >= restartedAt && deliveredAtKill.has(receipt.webhookId),
        );
        expect(resentAfterRestart).toEqual([]);
        expect(await states()).toEqual({ delivered: CALLBACKS });

        // What the crash cost: callbacks in flight at the kill arrive twice, nothing else does.
        const duplicates = [...receivers.countsById()].filter(([, count]) => count > 1).length;
        process.stdout.write(
          `dispatcher crash: killed after ${receivedAtKill} receipts, states at kill ${JSON.stringify(atKill)}, ` +
            `${receivers.receipts.length} receipts for ${CALLBACKS} callbacks, ${duplicates} received twice\n`,
        );
      }, 180_000);

      it('two dispatchers at once share the work and, with nothing failing, deliver every callback exactly once', async () => {
        // Debug logs name each attempt's webhook id, so each process's share shows in its output.
        const { store, receivers, merchantIds, env, states } = await setUp('e2e_dispatcher_pair', 'debug');
        const pair = [await startApp('webhook-dispatcher', env), await startApp('webhook-dispatcher', env)];
        apps.push(...pair);

        const expected = await appendBurst(store, merchantIds);
        await eventually(
          async () => ((await states()).delivered === CALLBACKS ? true : undefined),
          90_000,
          `all ${CALLBACKS} deliveries delivered`,
        );
        // A duplicate would be a second attempt, which could only come after a first was recorded delivered.
        await new Promise((resolve) => setTimeout(resolve, 500));

        const counts = receivers.countsById();
        expect(new Set(counts.keys())).toEqual(new Set(expected.byId.keys()));
        expect([...counts].filter(([, count]) => count !== 1)).toEqual([]);
        expect(await states()).toEqual({ delivered: CALLBACKS });

        const sentBy = pair.map(
          (app) =>
            new Set(
              app
                .output()
                .split('\n')
                .filter((line) => line.includes('"message":"callback attempt"'))
                .map((line) => JSON.parse(line) as { webhook_id: string; state?: string })
                .filter((entry) => entry.state === 'delivered')
                .map((entry) => entry.webhook_id),
            ),
        );
        expect(sentBy[0].size).toBeGreaterThan(0);
        expect(sentBy[1].size).toBeGreaterThan(0);
        expect(sentBy[0].size + sentBy[1].size).toBe(CALLBACKS);
        expect([...sentBy[0]].filter((id) => sentBy[1].has(id))).toEqual([]);
        const spanMs = receivers.receipts[receivers.receipts.length - 1].at - receivers.receipts[0].at;
        process.stdout.write(
          `dispatcher pair: ${sentBy[0].size} and ${sentBy[1].size} callbacks delivered by each, first to last arrival ${spanMs} ms\n`,
        );
      }, 180_000);
    },
  );
}
