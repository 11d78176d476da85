/**
 * Starting Paygate for a benchmark, in one place for every bench that drives the apps over HTTP
 * (bench:api, bench:e2e): processes on loopback ports, the standalone and the distributed layout,
 * merchants, and clean-up. A change to how the distributed apps are started (a new transport, a
 * new environment variable) belongs here.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlDatabase, postgresUrlInSchema } from '@paygate/sql';
import { freePort } from '@paygate/net-guard';
import { localCommandRoutes } from '../local/command-routes';
import { localCommandTlsEnv } from '../local/command-tls';
import { collectionsOnSandbox, moneyOutOnSandbox } from '../local/sandbox-providers';

export const ROOT = join(__dirname, '..', '..', '..'); // dist/tools/bench -> repository root
export const MASTER_KEY = '0f'.repeat(32);
export const ADMIN_TOKEN = 'bench-admin-token-0123456789';
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

export interface Proc {
  name: string;
  url: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

const running = new Set<Proc>();
// A crash of this process must not leave servers holding ports, PGlite files or consumer groups.
process.on('exit', () => running.forEach((p) => p.child.exitCode === null && p.child.kill('SIGKILL')));

/** Stops every process still running: for a bench's failure path. */
export const stopAll = () => Promise.all([...running].map((p) => p.stop()));

/** Spawns `node <args>` on a free loopback port and waits until GET /health/ready answers 2xx. */
export async function start(name: string, args: string[], env: Record<string, string>): Promise<Proc> {
  const port = await freePort();
  // Flags, not NODE_OPTIONS: Node 20 refuses --cpu-prof there.
  const profile = CPU_PROF_DIR
    ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF_DIR}`, `--cpu-prof-name=${name}.${port}.cpuprofile`]
    : [];
  const child = spawn(process.execPath, [...profile, ...args], {
    cwd: ROOT,
    // No shutdown delay: nothing routes to a bench's apps, so draining readiness first only waits.
    env: { ...process.env, ...RATE_LIMITS, SHUTDOWN_DELAY_MS: '0', ...env, PORT: String(port) },
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

/** `node dist/apps/<app>/main.js`, with the app's own command certificate unless `env` names one. */
const startApp = (app: string, env: Record<string, string>, name = app) =>
  start(name, [join(ROOT, 'dist/apps', app, 'main.js')], { ...localCommandTlsEnv(app), ...env });

/** PostgreSQL and Kafka from the environment, when both are set: what the distributed layout needs. */
export function distributedTarget(): { storeUrl: string; brokerUrl: string } | undefined {
  const storeUrl = process.env.STORE_URL ?? '';
  const brokerUrl = process.env.BROKER_URL ?? '';
  return storeUrl.startsWith('postgres://') && brokerUrl.startsWith('kafka://') ? { storeUrl, brokerUrl } : undefined;
}
/** The port of BROKER_URL's first broker (`kafka://host:port,…`), for the cost tables' Kafka row. */
export const kafkaPort = (brokerUrl: string) =>
  Number(/:(\d+)/.exec(brokerUrl.replace(/^kafkas?:\/\//, ''))?.[1] ?? 9092);
export const DISTRIBUTED_SKIPPED =
  'Distributed skipped: it needs STORE_URL=postgres://… and BROKER_URL=kafka://… in the environment';

export const runId = Date.now().toString(36);
/** A schema of its own per run and target, so runs never see each other's rows. */
export const freshSchema = (prefix: string) => `${prefix}_${runId}_${Math.random().toString(36).slice(2, 8)}`;

/** Reported, not thrown: a failed drop must not hide the error that brought us here. */
export async function dropSchema(storeUrl: string, schema: string): Promise<void> {
  await openSqlDatabase(storeUrl)
    .then((db) => db.query(`drop schema if exists ${schema} cascade`).finally(() => db.close()))
    .catch((error: unknown) => console.error(`could not drop schema ${schema}: ${(error as Error).message}`));
}

/** Paygate as one layout runs it: where merchants call (gateways), every process (for CPU), and how to take it down. */
export interface Layout {
  name: string;
  gateways: Proc[];
  procs: Proc[];
  stop(): Promise<void>;
}

/** `dist/apps/standalone` on a fresh PGlite directory and the in-process broker; `env` adds to its settings. */
export async function launchStandalone(env: Record<string, string> = {}): Promise<Layout> {
  const dataDir = mkdtempSync(join(tmpdir(), 'paygate-bench-'));
  const cleanUp = () => rmSync(dataDir, { recursive: true, force: true });
  try {
    const app = await startApp('standalone', {
      DATA_DIR: dataDir,
      STORE_URL: `pglite://${join(dataDir, 'pglite')}`,
      EVENT_STORE_URL: '',
      BROKER_URL: 'inproc://',
      MASTER_KEY,
      ADMIN_TOKEN,
      LOG_LEVEL: 'error',
      ...env,
    });
    return {
      name: 'standalone (PGlite, inproc)',
      gateways: [app],
      procs: [app],
      stop: () => app.stop().finally(cleanUp),
    };
  } catch (error) {
    cleanUp();
    throw error;
  }
}

/**
 * The distributed layout on PostgreSQL (a fresh schema, dropped by `stop`) and Kafka: sandbox,
 * two api-gateways, collections, webhook-dispatcher, and with `servicePayments` service-payments
 * (wallets, refunds and payouts, their provider calls to the sandbox); `env` adds to every app's
 * settings.
 */
export async function launchDistributed(
  { storeUrl, brokerUrl }: { storeUrl: string; brokerUrl: string },
  env: Record<string, string> = {},
  { servicePayments = false } = {},
): Promise<Layout> {
  const schema = freshSchema('bench');
  const routes = await localCommandRoutes();
  const common = {
    STORE_URL: postgresUrlInSchema(storeUrl, schema),
    EVENT_STORE_URL: '',
    BROKER_URL: brokerUrl,
    MASTER_KEY,
    ADMIN_TOKEN,
    LOG_LEVEL: 'error',
    ...routes.senders,
    ...env,
  };
  const procs: Proc[] = [];
  const stop = async () => {
    await Promise.all(procs.map((p) => p.stop()));
    await dropSchema(storeUrl, schema);
  };
  try {
    // Started in the distributed spec's order: the gateways before collections, whose checkout returns to one.
    const sandbox = await startApp('sandbox', common);
    procs.push(sandbox);
    const gateways = [
      await startApp('api-gateway', common, 'api-gateway-1'),
      await startApp('api-gateway', common, 'api-gateway-2'),
    ];
    procs.push(...gateways);
    procs.push(
      await startApp('collections', {
        ...common,
        ...collectionsOnSandbox(sandbox.url, gateways[0].url),
        ...routes.listen('collections'),
      }),
    );
    procs.push(await startApp('webhook-dispatcher', { ...common, ...routes.listen('webhook-dispatcher') }));
    if (servicePayments)
      procs.push(
        await startApp('service-payments', {
          ...common,
          ...moneyOutOnSandbox(sandbox.url),
          ...routes.listen('service-payments'),
        }),
      );
    return { name: 'distributed (PostgreSQL, Kafka, 2 gateways)', gateways, procs, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A merchant, through the admin API: its keys for requests and its signing key for callbacks (payouts' to the same URL). */
export async function createMerchant(
  gateway: string,
  callbackUrl?: string,
): Promise<{ id: string; publicKey: string; secretKey: string; signingKey: string }> {
  const response = await fetch(`${gateway}/admin/v1/merchants`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
    body: JSON.stringify({
      name: 'Benchmark merchant',
      collection_callback_url: callbackUrl,
      payouts_callback_url: callbackUrl,
    }),
  });
  const body = (await response.json()) as {
    data?: { id?: string; public_key?: string; secret_key?: string; signing_key?: string };
  };
  const { id, public_key: publicKey, secret_key: secretKey, signing_key: signingKey } = body.data ?? {};
  if (response.status !== 201 || !id || !publicKey || !secretKey || !signingKey)
    throw new Error(`cannot create a merchant: ${response.status} ${JSON.stringify(body)}`);
  return { id, publicKey, secretKey, signingKey };
}

/** The benches' initialize body: MoMo, UGX 81,000, a payer ending 0001 (the sandbox approves and calls back). */
export const mobileMoneyInitialize = (merchantReference: string, requireConfirmation: boolean) =>
  JSON.stringify({
    merchant_reference: merchantReference,
    transaction_method: 'MOBILE_MONEY',
    provider_code: 'mtn_momo_ug',
    currency: 'UGX',
    amount: 81000,
    msisdn: '256772000001',
    customer_name: 'Jane Doe',
    customer_email: 'jane@example.com',
    description: 'Order 1001',
    require_confirmation: requireConfirmation,
  });
