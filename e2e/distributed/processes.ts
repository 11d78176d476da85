import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { postgresUrlInSchema } from '@paygate/sql';
import { serviceUrl, TEST_ADMIN_TOKEN, TEST_MASTER_KEY, TEST_RATE_LIMITS } from '@paygate/testing';
import {
  collectionsOnSandbox,
  moneyOutOnSandbox,
  ensureBuilt,
  freePort,
  localCommandRoutes,
  localCommandTlsEnv,
  type LocalCommandRoutes,
} from '@paygate/tools-local';

export { collectionsOnSandbox, moneyOutOnSandbox, ensureBuilt, freePort, localCommandRoutes, type LocalCommandRoutes };

const root = join(__dirname, '..', '..');

/** PostgreSQL's url from STORE_URL: the distributed layout needs it as well as Kafka. */
export function distributedPostgres(): string {
  const postgres = serviceUrl('postgres');
  if (!postgres) throw new Error('distributed mode needs STORE_URL=postgres://… as well as Kafka');
  return postgres;
}

/**
 * What every app of one distributed Paygate starts with: its own `schema` on `postgres`, the
 * broker, the command routes' senders and the test keys; `settings` add to these or override them.
 */
export function distributedEnv(
  {
    postgres,
    schema,
    brokerUrl,
    routes,
  }: { postgres: string; schema: string; brokerUrl: string; routes: LocalCommandRoutes },
  settings: Record<string, string> = {},
): Record<string, string> {
  return {
    ...routes.senders,
    STORE_URL: postgresUrlInSchema(postgres, schema),
    BROKER_URL: brokerUrl,
    LOG_LEVEL: 'warn',
    MASTER_KEY: TEST_MASTER_KEY,
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    ...settings,
  };
}

export interface AppProcess {
  url: string;
  child: ChildProcess;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts `node dist/apps/<app>/main.js` (on `port`, or any free one; its own command certificate,
 * rate limits raised and no shutdown delay unless `env` sets them) and waits until it answers /health/ready, or only
 * /health/live with `until: 'live'` (an app that is to wait for its dependencies).
 */
export async function startApp(
  app: string,
  env: Record<string, string>,
  port?: number,
  { until = 'ready' }: { until?: 'live' | 'ready' } = {},
): Promise<AppProcess> {
  port ??= await freePort();
  const child = spawn(process.execPath, [join(root, 'dist/apps', app, 'main.js')], {
    cwd: root,
    env: {
      ...process.env,
      ...TEST_RATE_LIMITS,
      SHUTDOWN_DELAY_MS: '0',
      ...localCommandTlsEnv(app),
      ...env,
      PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${app} exited with ${child.exitCode}:\n${output}`);
    const answering = await fetch(`${url}/health/${until}`).then(
      (r) => r.ok,
      () => false,
    );
    if (answering) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${app} not ${until} within 60 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    url,
    child,
    output: () => output,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Runs an app expecting it to fail at start-up; returns its exit code and output. */
export function runFailingApp(
  app: string,
  env: Record<string, string>,
  timeoutMs = 30_000,
): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, [join(root, 'dist/apps', app, 'main.js')], {
    cwd: root,
    env: { ...process.env, ...localCommandTlsEnv(app), ...env, PORT: '0' },
    encoding: 'utf8',
    timeout: timeoutMs,
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}
