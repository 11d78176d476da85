/**
 * Webhooks benchmark: callback-producing collection events pushed through a webhook-dispatcher
 * process (dist/apps/webhook-dispatcher, BROKER_URL=inproc://: its consumer is a catch-up
 * subscription on the event store) to local receivers, measured where the callbacks arrive.
 * 90% of the merchants answer 200 at once, 10% after BENCH_SLOW_MS; each merchant has its own
 * host (a loopback address of its own), as real merchants have their own domains, so the
 * dispatcher's per-host cap applies per merchant.
 *
 *   npm run bench:webhooks                   PGlite in a temp dir
 *   STORE_URL=postgres://… npm run bench:webhooks
 *                                            PostgreSQL, a fresh schema dropped afterwards
 *   BENCH_EVENTS=20000                       callback-producing events (two per transaction)
 *   BENCH_MERCHANTS=100                      every tenth one slow
 *   BENCH_SLOW_MS=2000                       the slow receivers' answer time
 *   BENCH_CONCURRENCY_PER_HOST=4             CALLBACK_CONCURRENCY_PER_HOST of the dispatcher
 *   BENCH_CPU_PROF=<dir>                     V8 CPU profile of the dispatcher, written at exit
 *   BENCH_STALL_SECONDS=60                   give up when nothing arrives for this long
 *   BENCH_RATE=<transactions/s>              pace the appends (PostgreSQL only; default: as fast as the
 *                                            store takes them)
 *
 * PGlite is one process's database, so with PGlite the events are appended before the
 * dispatcher starts and it drains them as a backlog; delays then count from its start. With
 * PostgreSQL the dispatcher runs first and the events are appended live.
 *
 * Exits 0 whatever the figures (aims are reported, not asserted); 1 when setup fails.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CollectionState } from '@paygate/collections-domain';
import { collectionStream } from '@paygate/contracts';
import { openEventStore, type EventStore } from '@paygate/event-store';
import { MerchantAccounts, SecretBox } from '@paygate/merchants';
import { openSqlDatabase, postgresUrlInSchema, type SqlDatabase } from '@paygate/sql';
import { dropSchema } from './apps';
import { cpuTicks, machineTicks } from './cpu-ticks';
import { freePort } from '@paygate/net-guard';
import { met as metText, ms, percentile } from './figures';
import { newCollectionReference, paidCollectionEvents, withPublished } from '../local/paid-collection';

const EVENTS_WANTED = Number(process.env.BENCH_EVENTS ?? 20_000);
const MERCHANTS = Number(process.env.BENCH_MERCHANTS ?? 100);
const SLOW_MS = Number(process.env.BENCH_SLOW_MS ?? 2_000);
const PER_HOST = process.env.BENCH_CONCURRENCY_PER_HOST ?? '4';
const CPU_PROF_DIR = process.env.BENCH_CPU_PROF;
const STALL_MS = Number(process.env.BENCH_STALL_SECONDS ?? 60) * 1_000;
const TRANSACTIONS = Math.ceil(EVENTS_WANTED / 2);
const RATE = Number(process.env.BENCH_RATE ?? 0);
/**
 * Transactions per batch: all their Initiated events, then all their completions, 16 appends at a time; paced, 20
 * batches a second.
 */
const BATCH = RATE > 0 ? Math.max(1, Math.round(RATE / 20)) : 250;
const WRITERS = 16;
const ROOT = join(__dirname, '..', '..', '..'); // dist/tools/bench -> repository root
const MASTER_KEY = '0f'.repeat(32);
/**
 * #19's targets: deliveries/s to the fast receivers, and their p99 from append to arrival while slow ones have
 * callbacks pending.
 */
const AIMS = { fastDeliveriesPerSecond: 2_000, fastP99Ms: 250 };
const CHARGES = 'transaction.charges';
const COMPLETED = 'transaction.completed';

const isSlow = (merchant: number) => merchant % 10 === 9;
/** 127.0.1.1, 127.0.1.2, …: Linux answers on all of 127/8, and the dispatcher groups by host name. */
const hostOf = (merchant: number) => `127.0.${1 + Math.floor(merchant / 250)}.${1 + (merchant % 250)}`;

interface Receipt {
  key: string;
  webhookId: string;
  slow: boolean;
  at: number;
}

/** What each callback is expected to be: keyed by `<internal_reference> <event>`. */
interface Expected {
  slow: boolean;
  /** performance.now() when the append that recorded its event had returned. */
  appendedAt: number;
}

const expected = new Map<string, Expected>();
const receipts: Receipt[] = [];
let lastArrival = 0;

/** One server per merchant host: fast ones answer at once, slow ones after SLOW_MS; arrival is the measurement. */
async function startReceivers(): Promise<{ servers: Server[]; urls: string[] }> {
  const servers: Server[] = [];
  const urls: string[] = [];
  for (let merchant = 0; merchant < MERCHANTS; merchant++) {
    const slow = isSlow(merchant);
    const server = createHttpServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const at = performance.now();
        lastArrival = at;
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
            event: string;
            payload: { internal_reference: string };
          };
          receipts.push({
            key: `${body.payload.internal_reference} ${body.event}`,
            webhookId: String(request.headers['webhook-id']),
            slow,
            at,
          });
        } catch {
          receipts.push({ key: 'unparseable', webhookId: String(request.headers['webhook-id']), slow, at });
        }
        const answer = () => response.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
        if (slow) setTimeout(answer, SLOW_MS);
        else answer();
      });
    });
    const host = hostOf(merchant);
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, host, resolve));
    servers.push(server);
    urls.push(`http://${host}:${(server.address() as AddressInfo).port}/callbacks`);
  }
  return { servers, urls };
}

/** Runs `work` over `items` with `writers` at a time. */
async function inParallel<T>(items: T[], writers: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: writers }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

/**
 * Appends every transaction in batches, as fast as the store takes them: a batch's Initiated
 * events (with the published CollectionOpened), then their Confirmed + PinPromptSent + Completed
 * (with the published CollectionSettled), one append per stream each time. Returns
 * the appended events per second.
 */
async function appendAll(
  store: EventStore,
  merchantIds: string[],
  rate = 0,
): Promise<{ seconds: number; events: number }> {
  const started = performance.now();
  for (let first = 0; first < TRANSACTIONS; first += BATCH) {
    // Paced: batch k starts k·BATCH/rate seconds in (never earlier; later when the store falls behind).
    const due = started + (rate > 0 ? (first / rate) * 1_000 : 0);
    if (due > performance.now()) await new Promise((resolve) => setTimeout(resolve, due - performance.now()));
    const batch = Array.from({ length: Math.min(BATCH, TRANSACTIONS - first) }, (_, i) => {
      const n = first + i;
      const merchant = n % MERCHANTS;
      const reference = newCollectionReference();
      return { reference, merchant, ...paidCollectionEvents(merchantIds[merchant], reference, n + 1, 'bench') };
    });
    const opened = new Map<string, CollectionState>();
    await inParallel(batch, WRITERS, async (tx) => {
      const { domain, published, after } = withPublished([tx.initiated], null);
      opened.set(tx.reference, after);
      await store.appendToStream(collectionStream(tx.reference), [...domain, ...published], {
        expectedRevision: 'no_stream',
      });
      expected.set(`${tx.reference} ${CHARGES}`, { slow: isSlow(tx.merchant), appendedAt: performance.now() });
    });
    await inParallel(batch, WRITERS, async (tx) => {
      const { domain, published } = withPublished(tx.rest, opened.get(tx.reference) ?? null);
      await store.appendToStream(collectionStream(tx.reference), [...domain, ...published], { expectedRevision: 1 });
      expected.set(`${tx.reference} ${COMPLETED}`, { slow: isSlow(tx.merchant), appendedAt: performance.now() });
    });
  }
  return { seconds: (performance.now() - started) / 1_000, events: TRANSACTIONS * 6 };
}

interface Dispatcher {
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

let dispatcher: Dispatcher | undefined;
// A crash of this process must not leave the dispatcher holding the PGlite directory or the schema.
process.on('exit', () => dispatcher?.child.exitCode === null && dispatcher.child.kill('SIGKILL'));

/**
 * Spawns the dispatcher and waits until it answers /health/ready. On a PGlite backlog its
 * readiness queries queue behind the catch-up on the one connection, so that may take minutes.
 */
async function startDispatcher(env: Record<string, string>, readyWithinMs: number): Promise<Dispatcher> {
  const spawnedAt = performance.now();
  const port = await freePort();
  const profile = CPU_PROF_DIR
    ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF_DIR}`, `--cpu-prof-name=webhook-dispatcher.${port}.cpuprofile`]
    : [];
  const child = spawn(process.execPath, [...profile, join(ROOT, 'dist/apps/webhook-dispatcher/main.js')], {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output = (output + chunk).slice(-20_000)));
  child.stderr?.on('data', (chunk) => (output = (output + chunk).slice(-20_000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const started: Dispatcher = {
    child,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      // SIGTERM drains the attempts in flight (slow ones take SLOW_MS); a stuck process must not hang the benchmark.
      const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(killer);
    },
  };
  dispatcher = started;
  const deadline = Date.now() + readyWithinMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`webhook-dispatcher exited with ${child.exitCode}:\n${output}`);
    if (
      await fetch(`http://127.0.0.1:${port}/health/ready`).then(
        (r) => r.ok,
        () => false,
      )
    ) {
      console.log(`  webhook-dispatcher ready after ${((performance.now() - spawnedAt) / 1_000).toFixed(1)} s`);
      return started;
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`webhook-dispatcher not ready within ${readyWithinMs / 1_000} s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Resolves when every expected callback has arrived, or when nothing has arrived for STALL_MS. */
async function waitForDeliveries(total: number, progress?: () => Promise<string>): Promise<boolean> {
  const arrived = new Set<string>();
  let counted = 0;
  let nextReport = performance.now() + 10_000;
  for (;;) {
    for (; counted < receipts.length; counted++) arrived.add(receipts[counted].key);
    if (arrived.size >= total) return true;
    const now = performance.now();
    if (now - Math.max(lastArrival, waitStarted) > STALL_MS) return false;
    if (!dispatcher || dispatcher.child.exitCode !== null || dispatcher.child.signalCode !== null) return false;
    if (now >= nextReport) {
      nextReport = now + 10_000;
      console.log(
        `  ${arrived.size}/${total} callbacks received${progress ? `, ${await progress().catch(() => 'store not readable')}` : ''}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
let waitStarted = 0;

/** Each delivered callback's first attempt, from the store's own timestamps (epoch ms). */
interface StageRow {
  target_url: string;
  recorded: string | number;
  enqueued: string | number;
  started: string | number;
  duration: number;
  delivered: string | number;
}

/**
 * Where a callback's time went, per stage. Event and delivery timestamps are PostgreSQL's now()
 * (the start of the writing transaction); the attempt's start is the dispatcher's clock, on
 * the same machine.
 */
async function stageTimes(
  db: SqlDatabase,
  origin: number,
  slowUrls: Set<string>,
): Promise<Array<[string, Float64Array]>> {
  const rows = await db.query<StageRow>(
    `select d.target_url, extract(epoch from e.recorded_at) * 1000 as recorded, extract(epoch from d.created_at) * 1000 as enqueued,
            extract(epoch from a.started_at) * 1000 as started, a.duration_ms as duration, extract(epoch from d.delivered_at) * 1000 as delivered
     from webhook_deliveries d
     join es_events e on e.event_id = substr(d.webhook_id, 5)::uuid
     join webhook_attempts a on a.webhook_id = d.webhook_id and a.attempt = 1
     where d.state = 'delivered'`,
  );
  const floor = origin > 0 ? performance.timeOrigin + origin : 0;
  const fast = rows.filter((row) => !slowUrls.has(row.target_url));
  const stage = (f: (row: StageRow) => number) => Float64Array.from(fast.map(f)).sort();
  return [
    [
      'append → enqueued (subscription, projection)',
      stage((r) => Number(r.enqueued) - Math.max(Number(r.recorded), floor)),
    ],
    ['enqueued → attempt started (claim, order, key)', stage((r) => Number(r.started) - Number(r.enqueued))],
    ['attempt (connect, POST, 200)', stage((r) => r.duration)],
    ['answer → recording began', stage((r) => Number(r.delivered) - Number(r.started) - r.duration)],
  ];
}

interface Run {
  store: string;
  appended: { seconds: number; events: number };
  dispatcherCpu: string;
  complete: boolean;
  stages: Array<[string, Float64Array]>;
  /** Time zero of the rates: the first append (PostgreSQL) or the dispatcher's start (PGlite). */
  started: number;
  /** No delay counts from before this (PGlite: the dispatcher's start; PostgreSQL: 0, each event's append). */
  origin: number;
}

function report(run: Run): void {
  // First arrival of each callback counts; a second one is a duplicate, reported apart.
  const first = new Map<string, Receipt>();
  let duplicates = 0;
  let unexpected = 0;
  for (const receipt of receipts) {
    if (!expected.has(receipt.key)) unexpected++;
    else if (first.has(receipt.key)) duplicates++;
    else first.set(receipt.key, receipt);
  }
  const delayOf = (receipt: Receipt) => receipt.at - Math.max(expected.get(receipt.key)!.appendedAt, run.origin);
  const arrivals = [...first.values()];
  const fast = arrivals.filter((r) => !r.slow);
  const slow = arrivals.filter((r) => r.slow);
  const sortedDelays = (list: Receipt[]) => Float64Array.from(list.map(delayOf)).sort();
  const all = sortedDelays(arrivals);
  const fastDelays = sortedDelays(fast);

  // Slow callbacks pending: appended (or, with PGlite, dispatcher started) and not yet arrived.
  const slowPending = [...expected]
    .filter(([, e]) => e.slow)
    .map(([key, e]) => [Math.max(e.appendedAt, run.origin), first.get(key)?.at ?? Infinity] as const)
    .sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const [from, to] of slowPending) {
    const last = merged[merged.length - 1];
    if (last && from <= last[1]) last[1] = Math.max(last[1], to);
    else merged.push([from, to]);
  }
  const duringSlow = fast.filter((r) => merged.some(([from, to]) => r.at >= from && r.at < to));
  const fastDuringSlow = sortedDelays(duringSlow);

  const start = run.started;
  const lastOf = (list: Receipt[]) => list.reduce((latest, r) => Math.max(latest, r.at), start);
  const rate = (count: number, until: number) => (until > start ? count / ((until - start) / 1_000) : 0);
  // The busiest second at the receivers.
  const perSecond = new Map<number, number>();
  for (const r of arrivals)
    perSecond.set(Math.floor((r.at - start) / 1_000), (perSecond.get(Math.floor((r.at - start) / 1_000)) ?? 0) + 1);
  const peak = Math.max(0, ...perSecond.values());

  const overall = rate(arrivals.length, lastOf(arrivals));
  const fastRate = rate(fast.length, lastOf(fast));
  console.log(
    `\n${run.store}: ${run.appended.events} events appended in ${run.appended.seconds.toFixed(1)} s (${Math.round(run.appended.events / run.appended.seconds)} events/s), ${expected.size} callbacks expected`,
  );
  console.log(
    `${arrivals.length} received (${fast.length} fast, ${slow.length} slow), ${duplicates} duplicates, ${unexpected} unexpected${run.complete ? '' : ', INCOMPLETE (stalled or dispatcher exited)'}`,
  );
  if (run.stages.length > 0) {
    console.log(`\nWhere a fast callback's time went (first attempts, from the store's timestamps):\n`);
    console.log('| stage | p50 ms | p99 ms |');
    console.log('|---|---|---|');
    for (const [name, values] of run.stages)
      console.log(`| ${name} | ${ms(percentile(values, 50))} | ${ms(percentile(values, 99))} |`);
    console.log('');
  }
  console.log(`CPU over the run (% of one core): ${run.dispatcherCpu}\n`);
  console.log(
    '| store | deliveries/s (all) | fast deliveries/s | busiest second | all p50 ms | all p99 ms | fast p50 ms | fast p99 ms | fast p99 while slow pending |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  console.log(
    `| ${run.store} | ${Math.round(overall)} | ${Math.round(fastRate)} | ${peak} | ${ms(percentile(all, 50))} | ${ms(percentile(all, 99))} | ` +
      `${ms(percentile(fastDelays, 50))} | ${ms(percentile(fastDelays, 99))} | ${ms(percentile(fastDuringSlow, 99))} (${duringSlow.length} deliveries) |`,
  );
  if (run.origin > 0)
    console.log(
      '(PGlite: events appended before the dispatcher started; delays count from its start, so they measure the backlog, not a live flow)',
    );
  // Last, one line per #19 target; a run that stalled meets none.
  const met = (ok: boolean) => metText(ok && run.complete);
  const incomplete = run.complete ? '' : ' (INCOMPLETE)';
  console.log(
    `\nAim: >= ${AIMS.fastDeliveriesPerSecond} deliveries/s to fast receivers: fast ${Math.round(fastRate)}/s (all ${Math.round(overall)}/s, busiest second ${peak})${incomplete} ${met(fastRate >= AIMS.fastDeliveriesPerSecond)}`,
  );
  const p99 = percentile(fastDuringSlow, 99);
  console.log(
    `Aim: fast receivers' p99 < ${AIMS.fastP99Ms} ms from append to arrival while slow receivers have callbacks pending: ${ms(p99)} ms${incomplete} ${met(p99 < AIMS.fastP99Ms)}`,
  );
}

async function main(): Promise<void> {
  const storeUrl = process.env.STORE_URL ?? '';
  const postgres = /^postgres(ql)?:\/\//.test(storeUrl);
  const schema = `bench_webhooks_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const dataDir = postgres ? undefined : mkdtempSync(join(tmpdir(), 'paygate-webhooks-bench-'));
  const url = postgres ? postgresUrlInSchema(storeUrl, schema) : `pglite://${join(dataDir!, 'pglite')}`;
  const env = {
    STORE_URL: url,
    EVENT_STORE_URL: '',
    BROKER_URL: 'inproc://',
    MASTER_KEY,
    ALLOW_PRIVATE_CALLBACKS: 'true',
    CALLBACK_CONCURRENCY_PER_HOST: PER_HOST,
    LOG_LEVEL: 'error',
  };
  const { servers, urls } = await startReceivers();
  let db: SqlDatabase | undefined;
  let failed = false;
  try {
    db = await openSqlDatabase(url);
    const store = await openEventStore(db);
    const merchants = await MerchantAccounts.open(db, SecretBox.fromMasterKey(MASTER_KEY));
    const merchantIds: string[] = [];
    for (const [i, callbackUrl] of urls.entries())
      merchantIds.push(
        (await merchants.create({ name: `Bench merchant ${i}`, collectionCallbackUrl: callbackUrl })).merchant.id,
      );

    console.log(
      `${postgres ? 'PostgreSQL' : 'PGlite'}: ${TRANSACTIONS} transactions (${TRANSACTIONS * 2} callbacks) for ${MERCHANTS} merchants, ` +
        `${MERCHANTS - urls.filter((_, i) => isSlow(i)).length} fast, ${urls.filter((_, i) => isSlow(i)).length} answering after ${SLOW_MS} ms; ` +
        `CALLBACK_CONCURRENCY_PER_HOST=${PER_HOST}; appends ${postgres && RATE > 0 ? `paced at ${RATE} transactions/s` : 'as fast as the store takes them'}; ${cpus().length} cores, load average ${loadavg()[0].toFixed(2)}`,
    );

    let appended: Run['appended'];
    let origin = 0;
    let progress: (() => Promise<string>) | undefined;
    const before = { machine: machineTicks(), self: process.cpuUsage() };
    let dispatcherTicks = 0;
    let started: number;
    if (postgres) {
      dispatcher = await startDispatcher(env, 60_000);
      dispatcherTicks = cpuTicks(dispatcher.child.pid);
      started = performance.now();
      const sql = db;
      // The dispatcher's queue as it fills and drains: tells projection (enqueue) and delivery apart.
      progress = async () => {
        const rows = await sql.query<{ state: string; count: number }>(
          'select state, count(*)::int as count from webhook_deliveries group by state',
        );
        return `queue ${rows.map((r) => `${r.state} ${r.count}`).join(', ') || 'empty'}`;
      };
      appended = await appendAll(store, merchantIds, RATE);
      console.log(`  appended ${appended.events} events in ${appended.seconds.toFixed(1)} s; ${await progress()}`);
    } else {
      appended = await appendAll(store, merchantIds);
      // PGlite allows one process: hand the directory over to the dispatcher.
      await db.close();
      db = undefined;
      started = performance.now();
      origin = started;
      dispatcher = await startDispatcher(env, 600_000);
      // Counted from its start: catching up is the run.
      dispatcherTicks = 0;
    }
    waitStarted = performance.now();
    const complete = await waitForDeliveries(expected.size, progress);
    const seconds = (Math.max(lastArrival, started + 1) - started) / 1_000;
    const machine = machineTicks();
    const self = process.cpuUsage(before.self);
    const core = (ticks: number) => `${Math.round(ticks / seconds)}%`;
    const dispatcherCpu = [
      `dispatcher ${core(cpuTicks(dispatcher.child.pid) - dispatcherTicks)}`,
      `bench (appenders and receivers) ${Math.round((self.user + self.system) / 1e4 / seconds)}%`,
      machine.total > before.machine.total
        ? `machine ${Math.round((100 * (machine.busy - before.machine.busy)) / (machine.total - before.machine.total))}% of ${cpus().length} cores`
        : '',
    ]
      .filter(Boolean)
      .join(', ');
    if (receipts.length === 0) {
      failed = true;
      console.error(`no callback arrived: the setup is broken. Dispatcher output:\n${dispatcher.output()}`);
      return;
    }
    // Stopped before reading the store: with PGlite the directory is the dispatcher's until it exits.
    await dispatcher.stop();
    db ??= await openSqlDatabase(url);
    const states = await db.query<{ state: string; count: number }>(
      'select state, count(*)::int as count from webhook_deliveries group by state',
    );
    console.log(`  queue at the end: ${states.map((r) => `${r.state} ${r.count}`).join(', ')}`);
    // Failed attempts (timeouts) explain duplicates: the receiver got the callback, the dispatcher saw no answer in
    // time.
    const outcomes = await db.query<{ outcome: string; count: number }>(
      `select coalesce(error, 'HTTP ' || status_code) as outcome, count(*)::int as count from webhook_attempts group by 1 order by 2 desc`,
    );
    console.log(`  attempts: ${outcomes.map((r) => `${r.outcome} ×${r.count}`).join(', ')}`);
    const stages = await stageTimes(db, origin, new Set(urls.filter((_, i) => isSlow(i))));
    report({
      store: postgres ? 'PostgreSQL (live appends)' : 'PGlite (backlog)',
      appended,
      dispatcherCpu,
      complete,
      stages,
      started,
      origin,
    });
  } finally {
    await dispatcher?.stop();
    for (const server of servers) {
      server.closeAllConnections();
      server.close();
    }
    await db?.close().catch(() => undefined);
    if (postgres) {
      await dropSchema(storeUrl, schema);
    } else {
      rmSync(dataDir!, { recursive: true, force: true });
    }
    if (failed) process.exitCode = 1;
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
