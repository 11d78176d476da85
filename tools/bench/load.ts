/**
 * Load and ceilings shared by the HTTP benches (bench:api, bench:e2e): autocannon driving
 * initialize-shaped POSTs, the ceilings it is compared with (a bare node:http server, and the
 * same server doing one INSERT per request on PGlite or PostgreSQL), CPU per process over a run,
 * and the figures' formatting.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropSchema, freshSchema, start, type Proc } from './apps';
import { cpuTicks, machineTicks } from './cpu-ticks';
import { percentile } from './figures';

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
  on(
    event: 'response',
    listener: (client: unknown, statusCode: number, bytes: number, responseTimeMs: number) => void,
  ): this;
}
const autocannon = createRequire(__filename)('autocannon') as (options: AutocannonOptions) => AutocannonInstance;

export const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
export const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);

/** The closed-loop benches' settings (bench:e2e, bench:money-out): the layouts, the load and its drain. */
export const MODES = (process.env.BENCH_MODES ?? 'standalone,distributed').split(',').map((mode) => mode.trim());
export const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 200);
export const DRAIN_MS = Number(process.env.BENCH_DRAIN_SECONDS ?? 30) * 1_000;
export const SANDBOX_LATENCY_MS = process.env.BENCH_SANDBOX_LATENCY_MS ?? '0';
export const CEILINGS = process.env.BENCH_CEILINGS !== '0';

export interface Row {
  target: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  /** CPU per process over the run, in % of one core; where the two cores went. */
  cpu: string;
}

/**
 * Starts counting CPU of `procs`, this process (`self`, the load generator) and the machine; the
 * returned function says what each used since, in % of one core over `seconds`.
 */
export function cpuMeter(procs: Proc[], self: string): (seconds: number) => string {
  const before = { procs: procs.map((p) => cpuTicks(p.child.pid)), self: process.cpuUsage(), machine: machineTicks() };
  return (seconds) => {
    const ticksPerSecond = 100; // USER_HZ on Linux
    const core = (ticks: number) => `${Math.round((100 * ticks) / ticksPerSecond / seconds)}%`;
    const machine = machineTicks();
    const selfMicros = process.cpuUsage(before.self);
    return [
      ...procs.map((p, i) => `${p.name} ${core(cpuTicks(p.child.pid) - before.procs[i])}`),
      `${self} ${Math.round((selfMicros.user + selfMicros.system) / 1e4 / seconds)}%`,
      machine.total > before.machine.total
        ? `machine ${Math.round((100 * (machine.busy - before.machine.busy)) / (machine.total - before.machine.total))}% of ${cpus().length} cores`
        : '',
    ]
      .filter(Boolean)
      .join(', ');
  };
}

/**
 * Drives `urls` (connections spread round-robin) with POST /v1/collections/initialize, a fresh
 * `body()` each, no pipelining: each connection has one request in flight, as a merchant's HTTP
 * client would. Only 202 counts as served.
 */
export async function drive(
  target: string,
  urls: string[],
  headers: Record<string, string>,
  procs: Proc[],
  body: () => string,
): Promise<Row> {
  const options = (duration: number): AutocannonOptions => ({
    url: urls.map((url) => `${url}/v1/collections/initialize`),
    connections: CONNECTIONS,
    duration,
    pipelining: 1,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    requests: [{ setupRequest: (request) => ({ ...request, body: body() }) }],
  });
  if (WARMUP_SECONDS > 0) await autocannon(options(WARMUP_SECONDS));

  const latencies: number[] = [];
  let accepted = 0;
  let rejected = 0;
  const statuses = new Map<number, number>();
  const cpu = cpuMeter(procs, 'autocannon');
  const instance = autocannon(options(SECONDS));
  instance.on('response', (_client, statusCode, _bytes, responseTimeMs) => {
    latencies.push(responseTimeMs);
    if (statusCode === 202) accepted++;
    else rejected++;
    statuses.set(statusCode, (statuses.get(statusCode) ?? 0) + 1);
  });
  const result = await instance;
  if (rejected > 0) {
    const codes = [...statuses].filter(([code]) => code !== 202).map(([code, n]) => `${n}×${code}`);
    console.log(`${target}: non-202 answers ${codes.join(', ')}`);
  }
  if (result.errors > 0)
    console.log(
      `${target}: ${result.errors} socket errors, of which ${result.timeouts} timeouts (no answer within 10 s)`,
    );
  const sorted = Float64Array.from(latencies).sort();
  return {
    target,
    requestsPerSecond: accepted / result.duration,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    errors: rejected + result.errors, // autocannon's errors include timeouts
    cpu: cpu(result.duration),
  };
}

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

const CEILING_HEADERS = { 'public-key': 'pk_unused' };

export async function bareCeiling(body: () => string): Promise<Row> {
  const server = await start('http-server', ['-e', CEILING_SERVER], {});
  try {
    return await drive('ceiling (node:http)', [server.url], CEILING_HEADERS, [server], body);
  } finally {
    await server.stop();
  }
}

export async function pgliteCeiling(body: () => string): Promise<Row> {
  const dataDir = mkdtempSync(join(tmpdir(), 'paygate-api-ceiling-'));
  const server = await start('http-pglite', ['-e', writeCeilingScript('pglite')], {
    PGLITE_DIR: join(dataDir, 'pglite'),
  });
  try {
    return await drive('ceiling: node:http + one PGlite INSERT', [server.url], CEILING_HEADERS, [server], body);
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function postgresCeiling(storeUrl: string, body: () => string): Promise<Row> {
  const schema = freshSchema('bench_ceiling');
  const server = await start('http-postgres', ['-e', writeCeilingScript('postgres')], {
    CEILING_DATABASE_URL: storeUrl.split('?')[0],
    CEILING_SCHEMA: schema,
  });
  try {
    return await drive(
      'ceiling: node:http + one PostgreSQL INSERT (pool 16)',
      [server.url],
      CEILING_HEADERS,
      [server],
      body,
    );
  } finally {
    await server.stop();
    await dropSchema(storeUrl, schema);
  }
}
