import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  dropSchemas,
  TEST_ADMIN_TOKEN,
  TEST_CALLBACK_SETTINGS,
  TEST_MASTER_KEY,
  TEST_TIMERS,
  uniqueSchema,
} from '@paygate/testing';
import {
  collectionsOnSandbox,
  moneyOutOnSandbox,
  distributedEnv,
  ensureBuilt,
  freePort,
  localCommandRoutes,
  startApp,
  type AppProcess,
} from '../distributed/processes';

const root = join(__dirname, '..', '..');

export type LayoutName = 'standalone' | 'distributed';

/** A running Paygate the dashboard flow is driven against. */
export interface RunningLayout {
  name: LayoutName;
  /** The gateway's base URL: merchant API, admin API and dashboard. */
  url: string;
  adminToken: string;
  /** A second gateway on the same database and broker (distributed only), as behind a load balancer. */
  secondGatewayUrl?: string;
  /** Everything the processes printed so far. */
  output(): string;
  /** Stops every process and removes what the layout wrote (data directory, schema). */
  close(): Promise<void>;
}

/** Resolves when `child`'s stdout has printed `line`; rejects when it exits first or after `timeoutMs`. */
function printed(child: ChildProcess, output: () => string, line: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const finish = (error?: Error) => {
      clearTimeout(timer);
      child.stdout?.off('data', check);
      child.off('exit', exited);
      if (error) reject(error);
      else resolve();
    };
    const check = () => {
      if (output().includes(line)) finish();
    };
    const exited = (code: number | null, signal: string | null) =>
      finish(new Error(`exited (${code ?? signal}) before printing "${line}":\n${output()}`));
    const timer = setTimeout(
      () => finish(new Error(`did not print "${line}" within ${timeoutMs} ms:\n${output()}`)),
      timeoutMs,
    );
    child.stdout?.on('data', check);
    child.once('exit', exited);
    check();
  });
}

/** SIGTERM, then SIGKILL when it has not exited within `graceMs`. */
async function stopChild(child: ChildProcess, graceMs = 15_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/**
 * `npm start` as a user runs it: `node dist/apps/standalone/main.js` (what the script runs once
 * prestart has built) in a shell as bare as a new user's, with PATH and HOME, a data directory of
 * its own, a free port and known admin and master keys; ALLOW_PRIVATE_CALLBACKS is standalone's
 * default, set here so the suite says what it relies on. Nothing else from this process's
 * environment (STORE_URL, BROKER_URL) reaches it: it runs on its embedded PGlite and broker.
 * Ready once it prints "Paygate is running at <url>".
 */
export async function startStandalone(): Promise<RunningLayout> {
  ensureBuilt();
  const dataDir = mkdtempSync(join(tmpdir(), 'paygate-dashboard-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [join(root, 'dist/apps/standalone/main.js')], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? root,
      PORT: String(port),
      DATA_DIR: dataDir,
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      MASTER_KEY: TEST_MASTER_KEY,
      ALLOW_PRIVATE_CALLBACKS: 'true',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const close = async () => {
    await stopChild(child);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await printed(child, () => output, `Paygate is running at ${url}`, 60_000);
  } catch (error) {
    await close();
    throw new Error(`npm start (${url}): ${(error as Error).message}`);
  }
  return { name: 'standalone', url, adminToken: TEST_ADMIN_TOKEN, output: () => output, close };
}

/**
 * README's "Distributed mode" on this machine: sandbox, api-gateway (twice), collections,
 * service-payments and webhook-dispatcher from dist/, each its own process on a free port, on a
 * schema of its own in `postgres` and on the broker at `brokerUrl`, commands over mutual TLS on
 * free loopback ports (e2e/distributed/processes.ts), with the test timers and callback settings.
 */
export async function startDistributed(postgres: string, brokerUrl: string): Promise<RunningLayout> {
  ensureBuilt();
  const schema = uniqueSchema('e2e_dashboard');
  const apps: AppProcess[] = [];
  const close = async () => {
    await Promise.all(apps.map((app) => app.stop()));
    await dropSchemas(postgres, [schema]);
  };
  try {
    const routes = await localCommandRoutes();
    const env = distributedEnv({ postgres, schema, brokerUrl, routes }, { ...TEST_TIMERS, ...TEST_CALLBACK_SETTINGS });
    const start = async (app: string, settings: Record<string, string> = {}) => {
      const started = await startApp(app, { ...env, ...settings });
      apps.push(started);
      return started;
    };
    const sandbox = await start('sandbox');
    const gateway = await start('api-gateway');
    await start('collections', { ...collectionsOnSandbox(sandbox.url, gateway.url), ...routes.listen('collections') });
    await start('service-payments', {
      BILLER_API_URL: `${sandbox.url}/sandbox/biller`,
      ...moneyOutOnSandbox(sandbox.url),
      ...routes.listen('service-payments'),
    });
    await start('webhook-dispatcher', routes.listen('webhook-dispatcher'));
    const secondGateway = await start('api-gateway');
    return {
      name: 'distributed',
      url: gateway.url,
      secondGatewayUrl: secondGateway.url,
      adminToken: TEST_ADMIN_TOKEN,
      output: () => apps.map((app) => app.output()).join('\n'),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
