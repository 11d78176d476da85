import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INestApplication } from '@nestjs/common';
import { loadConfig } from '@paygate/config';
import { createConnectorRegistry, type ConnectorRegistry } from '@paygate/connectors';
import { createLogger } from '@paygate/logging';
import { createHttpApp, listen, openInfrastructure, type Infrastructure } from '@paygate/platform';
import { SandboxProvidersModule } from '@paygate/sandbox-providers';
import { eventually, TEST_RATE_LIMITS } from '@paygate/testing';

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * The sandbox providers in this process (PGlite, 50 ms latency), a receiver for their callbacks and the captured log.
 */
export interface SandboxHarness {
  url: string;
  infrastructure: Infrastructure;
  /** Everything written to stdout since start: the sandbox's log lines. */
  logs: string[];
  receiver: {
    url: string;
    received: Received[];
    /** Paths answered 503, and how many more times; paths under /down always are. */
    failing: Map<string, number>;
    at(path: string): Received[];
    first(path: string): Promise<Received>;
  };
  /**
   * A registry over config/providers.json and config/billers.json; connectors default to this sandbox, `env` as in
   * production.
   */
  registry(env?: Record<string, string>): ConnectorRegistry;
  /** A call to the sandbox's admin API (`/sandbox/v1/…`) with the admin token; the envelope's `data` and the status. */
  admin(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{
    status: number;
    body: { code: number; status: string; message: string; data: Record<string, unknown> };
  }>;
  /** Stops the sandbox app and starts a new one on the same store and port, as a redeploy would. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** Credentials connectors send to the sandbox by default; none may appear in a log, a row or an error. */
export const SANDBOX_SECRETS = ['sandbox-key', 'sandbox-subscription-key', 'sandbox-card-secret', 'sandbox-biller-key'];

/** ADMIN_TOKEN of the harness: the sandbox's admin routes need it. */
export const SANDBOX_ADMIN_TOKEN = 'sandbox-harness-admin-token';

/**
 * `env` (or `env(receiverUrl)`) adds to or overrides the harness's settings; by default callbacks
 * may reach the receiver, which listens on loopback.
 */
export async function startSandbox(
  name: string,
  env: Record<string, string> | ((receiverUrl: string) => Record<string, string>) = {},
): Promise<SandboxHarness> {
  const logs: string[] = [];
  const stdout = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    logs.push(String(chunk));
    return true;
  });

  const received: Received[] = [];
  const failing = new Map<string, number>();
  const receiver: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const path = request.url ?? '';
      const failuresLeft = failing.get(path) ?? 0;
      if (failuresLeft > 0) failing.set(path, failuresLeft - 1);
      received.push({ method: request.method ?? '', path, headers: request.headers, body });
      response.statusCode = failuresLeft > 0 || path.startsWith('/down') ? 503 : 200;
      response.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

  // Tests read the sandbox's warnings: capture them whatever LOG_LEVEL CI runs with.
  const config = loadConfig({
    ...TEST_RATE_LIMITS,
    STORE_URL: 'pglite://memory',
    BROKER_URL: 'inproc://',
    SANDBOX_LATENCY_MS: '50',
    LOG_LEVEL: 'info',
    ADMIN_TOKEN: SANDBOX_ADMIN_TOKEN,
    ALLOW_PRIVATE_CALLBACKS: 'true',
    ...(typeof env === 'function' ? env(receiverUrl) : env),
  });
  const log = createLogger(name, config.logging.level);
  const infrastructure = await openInfrastructure(config.platform, name, log);
  let app: INestApplication = await createHttpApp([SandboxProvidersModule], { config, infrastructure, log });
  const url = await listen(app, 0, '127.0.0.1');

  const { catalogue, billers } = config;
  const at = (path: string) => received.filter((r) => r.path === path);
  return {
    url,
    infrastructure,
    logs,
    receiver: {
      url: receiverUrl,
      received,
      failing,
      at,
      first: (path) => eventually(() => at(path)[0], 10_000, `a request to ${path}`),
    },
    registry: (env = {}) => createConnectorRegistry([...catalogue.values(), ...billers.values()], env, url),
    admin: async (method, path, body) => {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${SANDBOX_ADMIN_TOKEN}`,
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return {
        status: response.status,
        body: (await response.json()) as Awaited<ReturnType<SandboxHarness['admin']>>['body'],
      };
    },
    restart: async () => {
      await app.close();
      app = await createHttpApp([SandboxProvidersModule], { config, infrastructure, log });
      await listen(app, Number(new URL(url).port), '127.0.0.1');
      // A kept-alive connection to the old app fails the first request sent on it: use it up here.
      await eventually(
        async () => ((await fetch(`${url}/health/live`)).ok ? true : undefined),
        5_000,
        'the restarted sandbox',
      );
    },
    close: async () => {
      await app?.close();
      await infrastructure.close();
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
      stdout.mockRestore();
    },
  };
}
