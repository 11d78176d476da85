/**
 * API benchmark: `POST /v1/collections/initialize` driven by autocannon, next to its ceilings
 * driven the same way in the same run: a bare Node `http` server (this machine and client), and
 * the same server doing the one write an initialize cannot avoid, one INSERT per request on
 * PGlite (standalone's ceiling) or PostgreSQL (distributed's). Each target prints its share of
 * its ceiling and #19's aims say met or NOT met.
 *
 *   npm run bench:api                        ceilings and standalone (PGlite, in-process broker)
 *   STORE_URL=postgres://… BROKER_URL=kafka://… npm run bench:api
 *                                            also the PostgreSQL ceiling and distributed: two gateways,
 *                                            collections, dispatcher
 *   BENCH_SECONDS=20 BENCH_CONNECTIONS=50    per target; defaults 20 and 50
 *   BENCH_WARMUP_SECONDS=3                   unmeasured load first (JIT, pools, consumer groups)
 *   BENCH_CPU_PROF=<dir>                     V8 CPU profiles of the app processes, written at exit
 *   BENCH_RATE_LIMITS=1                      rate limits on (far above the load, so nothing is refused):
 *                                            measures the limiter's cost; default off (RATE_LIMIT_ENABLED=false)
 *
 * Exits 0 whatever the figures (aims are reported, not asserted); 1 when setup fails.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlDatabase } from '@paygate/sql';
import { cpuTicks, machineTicks } from './cpu-ticks';

/** The part of autocannon 8 used here: @types/autocannon is not installed. */
interface AutocannonOptions {
  url: string | string[];
  connections: number;
  duration: number;
  pipelining?: number;
  method?: string;
  headers?: Record<string, string>;
  requests?: Array<{ setupRequest?: (request: Record<string, unknown>) => Record<string, unknown> }>;
}
interface AutocannonResult {
  duration: number;
  errors: number;
  timeouts: number;
}
interface AutocannonInstance extends PromiseLike<AutocannonResult> {
  on(event: 'response', listener: (client: unknown, statusCode: number, bytes: number, responseTimeMs: number) => void): this;
}
const autocannon = createRequire(__filename)('autocannon') as (options: AutocannonOptions) => AutocannonInstance;

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const CPU_PROF_DIR = process.env.BENCH_CPU_PROF;
/** One merchant drives every request here: with production limits the benchmark would measure 429s. */
const RATE_LIMITS: Record<string, string> =
  process.env.BENCH_RATE_LIMITS === '1'
    ? {
        RATE_LIMIT_ENABLED: 'true',
        RATE_LIMIT_MERCHANT_PER_SECOND: '1000000',
        RATE_LIMIT_MERCHANT_BURST: '1000000',
        RATE_LIMIT_PUBLIC_PER_SECOND: '1000000',
        RATE_LIMIT_PUBLIC_BURST: '1000000',
        RATE_LIMIT_PROVIDER_PER_SECOND: '1000000',
        RATE_LIMIT_PROVIDER_BURST: '1000000',
      }
    : { RATE_LIMIT_ENABLED: 'false' };
const ROOT = join(__dirname, '..', '..', '..'); // dist/tools/bench -> repository root
const MASTER_KEY = '0f'.repeat(32);
const ADMIN_TOKEN = 'bench-admin-token-0123456789';
/** #19's targets: a share of the ceiling measured beside each in the same run, a p99, no errors. */
const AIMS = { standalone: { share: 35, p99Ms: 100 }, distributed: { rps: 1500, share: 18, p99Ms: 100 } };

interface Row {
  target: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  /** CPU per process over the run, in % of one core; where the two cores went. */
  cpu: string;
}

interface Proc {
  name: string;
  url: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

const running = new Set<Proc>();
// A crash of this process must not leave servers holding ports, PGlite files or consumer groups.
process.on('exit', () => running.forEach((p) => p.child.exitCode === null && p.child.kill('SIGKILL')));

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Spawns `node <args>` on a free port and waits until GET /health/ready answers 2xx. */
async function start(name: string, args: string[], env: Record<string, string>): Promise<Proc> {
  const port = await freePort();
  // Flags, not NODE_OPTIONS: Node 20 refuses --cpu-prof there.
  const profile = CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF_DIR}`, `--cpu-prof-name=${name}.${port}.cpuprofile`] : [];
  const child = spawn(process.execPath, [...profile, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...RATE_LIMITS, ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output = (output + chunk).slice(-20_000)));
  child.stderr?.on('data', (chunk) => (output = (output + chunk).slice(-20_000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const proc: Proc = {
    name,
    url: `http://127.0.0.1:${port}`,
    child,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      // SIGTERM drains and saves checkpoints; a stuck process must not hang the benchmark.
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(killer);
      running.delete(proc);
    },
  };
  running.add(proc);
  const deadline = Date.now() + 60_000;
  for (;;) {
    let failure: string | undefined;
    if (child.exitCode !== null) failure = `exited with ${child.exitCode}`;
    else if (
      await fetch(`${proc.url}/health/ready`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return proc;
    else if (Date.now() > deadline) failure = 'not ready within 60 s';
    if (failure) {
      child.kill('SIGKILL');
      running.delete(proc);
      throw new Error(`${name} ${failure}:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const startApp = (app: string, env: Record<string, string>, name = app) => start(name, [join(ROOT, 'dist/apps', app, 'main.js')], env);

/** What an initialize answers, in size and shape: every ceiling server answers it. */
const ANSWER_BODY = JSON.stringify({
  code: 202,
  status: 'accepted',
  message: 'Transaction initiated. Pending customer confirmation',
  data: {
    id: 1,
    merchant_reference: 'bench-000000000-0',
    internal_reference: 'PG7K3M9Q2X4T8V6B1N5R0D2F3H',
    transaction_type: 'COLLECTION',
    request_currency: 'UGX',
    request_amount: 81000,
    transaction_currency: 'UGX',
    transaction_amount: 81000,
    transaction_fee: 1215,
    charge_customer: false,
    total_credit: 79785,
    provider_code: 'mtn_momo_ug',
    transaction_status: 'PENDING',
    status_message: 'Transaction initiated. Pending customer confirmation',
  },
});

/** The ceiling: a bare `http` server in its own process, like the apps, with an answer of the same size. */
const CEILING_SERVER = `
const body = ${JSON.stringify(ANSWER_BODY)};
require('node:http').createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(202, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body));
}).listen(Number(process.env.PORT), '127.0.0.1');
`;

/**
 * A ceiling with the one write an initialize cannot avoid: the bare server above, plus one INSERT
 * of the request body per request before it answers. `WRITE` is PGlite's (a file database under
 * PGLITE_DIR, one connection, as standalone has) or PostgreSQL's (a pool of 16, each INSERT its
 * own committed transaction, so durable as an acknowledgement must be).
 */
const writeCeilingScript = (write: 'pglite' | 'postgres') => `
const body = ${JSON.stringify(ANSWER_BODY)};
(async () => {
  let insert;
  if (${JSON.stringify(write)} === 'pglite') {
    const { PGlite } = await import('@electric-sql/pglite');
    const db = new PGlite(process.env.PGLITE_DIR);
    await db.exec('create table if not exists bench_ceiling (id bigserial primary key, body text not null)');
    insert = (text) => db.query('insert into bench_ceiling (body) values ($1)', [text]);
  } else {
    const { Pool } = require('pg');
    const pool = new Pool({ connectionString: process.env.CEILING_DATABASE_URL, max: 16 });
    const schema = process.env.CEILING_SCHEMA;
    await pool.query('create schema if not exists ' + schema);
    await pool.query('create table if not exists ' + schema + '.bench_ceiling (id bigserial primary key, body text not null)');
    insert = (text) => pool.query('insert into ' + schema + '.bench_ceiling (body) values ($1)', [text]);
  }
  require('node:http').createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST') return res.writeHead(200).end();
      insert(Buffer.concat(chunks).toString()).then(
        () => res.writeHead(202, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body),
        (error) => res.writeHead(500).end(String(error)),
      );
    });
  }).listen(Number(process.env.PORT), '127.0.0.1');
})();
`;

async function createMerchant(gateway: string): Promise<string> {
  const response = await fetch(`${gateway}/admin/v1/merchants`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
    body: JSON.stringify({ name: 'Benchmark merchant' }),
  });
  const body = (await response.json()) as { data?: { public_key?: string } };
  if (response.status !== 201 || !body.data?.public_key) throw new Error(`cannot create a merchant: ${response.status} ${JSON.stringify(body)}`);
  return body.data.public_key;
}

let sequence = 0;
const runId = Date.now().toString(36);
/** A fresh merchant_reference every time: a repeated one would be an idempotent replay, another path. */
const initializeBody = () =>
  JSON.stringify({
    merchant_reference: `bench-${runId}-${(sequence++).toString(36)}`,
    transaction_method: 'MOBILE_MONEY',
    provider_code: 'mtn_momo_ug',
    currency: 'UGX',
    amount: 81000,
    msisdn: '256772000001',
    customer_name: 'Jane Doe',
    customer_email: 'jane@example.com',
    description: 'Order 1001',
    require_confirmation: true,
  });

/** One initialize per gateway before measuring, so a broken setup fails loudly instead of as 100% errors. */
async function checkInitialize(gateway: string, publicKey: string): Promise<void> {
  const response = await fetch(`${gateway}/v1/collections/initialize`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'public-key': publicKey },
    body: initializeBody(),
  });
  if (response.status !== 202) throw new Error(`initialize at ${gateway} answered ${response.status}: ${await response.text()}`);
}

const percentile = (sorted: Float64Array, p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

/**
 * Drives `urls` (connections spread round-robin) with unique initialize bodies, no pipelining:
 * each connection has one request in flight, as a merchant's HTTP client would.
 */
async function drive(target: string, urls: string[], headers: Record<string, string>, procs: Proc[]): Promise<Row> {
  const options = (duration: number): AutocannonOptions => ({
    url: urls.map((url) => `${url}/v1/collections/initialize`),
    connections: CONNECTIONS,
    duration,
    pipelining: 1,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    requests: [{ setupRequest: (request) => ({ ...request, body: initializeBody() }) }],
  });
  if (WARMUP_SECONDS > 0) await autocannon(options(WARMUP_SECONDS));

  const latencies: number[] = [];
  let accepted = 0;
  let rejected = 0;
  const statuses = new Map<number, number>();
  const before = { procs: procs.map((p) => cpuTicks(p.child.pid)), self: process.cpuUsage(), machine: machineTicks() };
  const instance = autocannon(options(SECONDS));
  instance.on('response', (_client, statusCode, _bytes, responseTimeMs) => {
    latencies.push(responseTimeMs);
    if (statusCode === 202) accepted++;
    else rejected++;
    statuses.set(statusCode, (statuses.get(statusCode) ?? 0) + 1);
  });
  const result = await instance;
  const ticksPerSecond = 100; // USER_HZ on Linux
  const core = (ticks: number) => `${Math.round((100 * ticks) / ticksPerSecond / result.duration)}%`;
  const machine = machineTicks();
  const selfMicros = process.cpuUsage(before.self);
  const cpu = [
    ...procs.map((p, i) => `${p.name} ${core(cpuTicks(p.child.pid) - before.procs[i])}`),
    `autocannon ${Math.round((selfMicros.user + selfMicros.system) / 1e4 / result.duration)}%`,
    machine.total > before.machine.total
      ? `machine ${Math.round((100 * (machine.busy - before.machine.busy)) / (machine.total - before.machine.total))}% of ${cpus().length} cores`
      : '',
  ].filter(Boolean);
  if (rejected > 0) {
    const codes = [...statuses].filter(([code]) => code !== 202).map(([code, n]) => `${n}×${code}`);
    console.log(`${target}: non-202 answers ${codes.join(', ')}`);
  }
  if (result.errors > 0) console.log(`${target}: ${result.errors} socket errors, of which ${result.timeouts} timeouts (no answer within 10 s)`);
  const sorted = Float64Array.from(latencies).sort();
  return {
    target,
    requestsPerSecond: accepted / result.duration,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    errors: rejected + result.errors, // autocannon's errors include timeouts
    cpu: cpu.join(', '),
  };
}

async function ceiling(): Promise<Row> {
  const server = await start('http-server', ['-e', CEILING_SERVER], {});
  try {
    return await drive('ceiling (node:http)', [server.url], { 'public-key': 'pk_unused' }, [server]);
  } finally {
    await server.stop();
  }
}

async function pgliteCeiling(): Promise<Row> {
  const dataDir = mkdtempSync(join(tmpdir(), 'paygate-api-ceiling-'));
  const server = await start('http-pglite', ['-e', writeCeilingScript('pglite')], { PGLITE_DIR: join(dataDir, 'pglite') });
  try {
    return await drive('ceiling: node:http + one PGlite INSERT', [server.url], { 'public-key': 'pk_unused' }, [server]);
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function postgresCeiling(storeUrl: string): Promise<Row> {
  const schema = `bench_ceiling_${runId}_${Math.random().toString(36).slice(2, 8)}`;
  const server = await start('http-postgres', ['-e', writeCeilingScript('postgres')], { CEILING_DATABASE_URL: storeUrl.split('?')[0], CEILING_SCHEMA: schema });
  try {
    return await drive('ceiling: node:http + one PostgreSQL INSERT (pool 16)', [server.url], { 'public-key': 'pk_unused' }, [server]);
  } finally {
    await server.stop();
    await openSqlDatabase(storeUrl)
      .then((db) => db.query(`drop schema if exists ${schema} cascade`).finally(() => db.close()))
      .catch((error: unknown) => console.error(`could not drop schema ${schema}: ${(error as Error).message}`));
  }
}

async function standalone(): Promise<Row> {
  const dataDir = mkdtempSync(join(tmpdir(), 'paygate-api-bench-'));
  let app: Proc | undefined;
  try {
    app = await startApp('standalone', {
      DATA_DIR: dataDir,
      STORE_URL: `pglite://${join(dataDir, 'pglite')}`,
      EVENT_STORE_URL: '',
      BROKER_URL: 'inproc://',
      MASTER_KEY,
      ADMIN_TOKEN,
      LOG_LEVEL: 'error',
    });
    const publicKey = await createMerchant(app.url);
    await checkInitialize(app.url, publicKey);
    return await drive('standalone (PGlite, inproc)', [app.url], { 'public-key': publicKey }, [app]);
  } finally {
    await app?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function distributed(storeUrl: string, brokerUrl: string): Promise<Row> {
  const schema = `bench_api_${runId}_${Math.random().toString(36).slice(2, 8)}`;
  const env = {
    STORE_URL: `${storeUrl}${storeUrl.includes('?') ? '&' : '?'}schema=${schema}`,
    EVENT_STORE_URL: '',
    BROKER_URL: brokerUrl,
    MASTER_KEY,
    ADMIN_TOKEN,
    LOG_LEVEL: 'error',
  };
  const procs: Proc[] = [];
  try {
    // Started in the distributed spec's order: the gateways before collections, whose checkout returns to one.
    const sandbox = await startApp('sandbox', env);
    procs.push(sandbox);
    const gateways = [await startApp('api-gateway', env, 'api-gateway-1'), await startApp('api-gateway', env, 'api-gateway-2')];
    procs.push(...gateways);
    procs.push(
      await startApp('collections', {
        ...env,
        MOMO_API_URL: `${sandbox.url}/sandbox/momo`,
        CARD_API_URL: `${sandbox.url}/sandbox/card`,
        CHECKOUT_RETURN_URL: gateways[0].url,
      }),
    );
    procs.push(await startApp('webhook-dispatcher', env));
    const publicKey = await createMerchant(gateways[0].url);
    for (const gateway of gateways) await checkInitialize(gateway.url, publicKey);
    return await drive(
      'distributed (PostgreSQL, Kafka, 2 gateways)',
      gateways.map((g) => g.url),
      { 'public-key': publicKey },
      procs,
    );
  } finally {
    await Promise.all(procs.map((p) => p.stop()));
    // Reported, not thrown: a failed drop must not hide the error that brought us here.
    await openSqlDatabase(storeUrl)
      .then((db) => db.query(`drop schema if exists ${schema} cascade`).finally(() => db.close()))
      .catch((error: unknown) => console.error(`could not drop schema ${schema}: ${(error as Error).message}`));
  }
}

const ms = (value: number) => (value < 10 ? value.toFixed(1) : String(Math.round(value)));

const startLoad = loadavg()[0];

async function main() {
  const storeUrl = process.env.STORE_URL ?? '';
  const brokerUrl = process.env.BROKER_URL ?? '';
  const bare = await ceiling();
  const pglite = await pgliteCeiling();
  const alone = await standalone();
  const rows: Array<{ row: Row; of?: Row }> = [{ row: bare }, { row: pglite, of: bare }, { row: alone, of: pglite }];
  let spread: { row: Row; of: Row } | undefined;
  if (storeUrl.startsWith('postgres://') && brokerUrl.startsWith('kafka://')) {
    const postgres = await postgresCeiling(storeUrl);
    spread = { row: await distributed(storeUrl, brokerUrl), of: postgres };
    rows.push({ row: postgres, of: bare }, spread);
  } else console.log('Distributed skipped: it needs STORE_URL=postgres://… and BROKER_URL=kafka://… in the environment');

  const share = (row: Row, of: Row) => (100 * row.requestsPerSecond) / of.requestsPerSecond;
  console.log(`\nPOST /v1/collections/initialize, ${CONNECTIONS} connections, ${SECONDS} s after ${WARMUP_SECONDS} s warm-up, no pipelining`);
  // Client and servers share this machine's cores; other load skews every row, so say what it was.
  console.log(`${cpus().length} cores, load average at start ${startLoad.toFixed(2)}\n`);
  console.log('| target | req/s (202) | p50 ms | p99 ms | errors | share of its ceiling |');
  console.log('|---|---|---|---|---|---|');
  for (const { row, of } of rows) {
    const ofText = of ? `${Math.round(share(row, of))}% of ${of.target.replace(/^ceiling: /, '')}` : '(the bare ceiling)';
    console.log(`| ${row.target} | ${Math.round(row.requestsPerSecond)} | ${ms(row.p50Ms)} | ${ms(row.p99Ms)} | ${row.errors} | ${ofText} |`);
  }
  console.log('\nCPU over each run (% of one core):');
  for (const { row } of rows) console.log(`- ${row.target}: ${row.cpu}`);

  const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
  const { standalone: aimAlone, distributed: aimSpread } = AIMS;
  console.log(
    `\nAim: standalone >= ${aimAlone.share}% of its PGlite ceiling, p99 < ${aimAlone.p99Ms} ms, zero errors: ` +
      `${Math.round(share(alone, pglite))}% (${Math.round(alone.requestsPerSecond)} of ${Math.round(pglite.requestsPerSecond)} req/s), p99 ${ms(alone.p99Ms)} ms, ${alone.errors} errors ` +
      met(share(alone, pglite) >= aimAlone.share && alone.p99Ms < aimAlone.p99Ms && alone.errors === 0),
  );
  const aimText = `distributed >= ${aimSpread.rps} req/s and >= ${aimSpread.share}% of its PostgreSQL ceiling, p99 < ${aimSpread.p99Ms} ms, zero errors`;
  if (spread) {
    const { row, of } = spread;
    const ok = row.requestsPerSecond >= aimSpread.rps && share(row, of) >= aimSpread.share && row.p99Ms < aimSpread.p99Ms && row.errors === 0;
    console.log(
      `Aim: ${aimText}: ${Math.round(row.requestsPerSecond)} req/s, ${Math.round(share(row, of))}% of ${Math.round(of.requestsPerSecond)}, p99 ${ms(row.p99Ms)} ms, ${row.errors} errors ${met(ok)}`,
    );
  } else console.log(`Aim: ${aimText}: not measured`);
}

main().catch(async (error) => {
  console.error(error);
  await Promise.all([...running].map((p) => p.stop()));
  process.exit(1);
});
