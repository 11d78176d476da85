import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INestApplication } from '@nestjs/common';
import { loadConfig } from '@paygate/config';
import { createConnectorRegistry, type ConnectorRegistry } from '@paygate/connectors';
import { createLogger } from '@paygate/logging';
import { createHttpApp, listen, openInfrastructure, type Infrastructure } from '@paygate/platform';
import { TEST_RATE_LIMITS } from '@paygate/testing';
import { SandboxProvidersModule } from './sandbox-providers.module';

/** A callback the sandbox sent to the receiver. */
export interface ReceivedCallback {
  method: string;
  path: string;
  body: unknown;
}

/** The sandbox app on 127.0.0.1 (PGlite in memory), the connectors talking to it, and a receiver for its callbacks. */
export interface ServedSandbox {
  url: string;
  app: INestApplication;
  infrastructure: Infrastructure;
  receiver: { url: string; received: ReceivedCallback[] };
  /** Connectors for mtn_momo_ug and card_ug whose provider APIs are this sandbox; `env` as in production. */
  registry(env?: Record<string, string>): ConnectorRegistry;
  /** GET on the sandbox admin API with the admin token: the status and the envelope. */
  admin(path: string, token?: string): Promise<{ status: number; body: { data: Record<string, unknown> } }>;
  close(): Promise<void>;
}

export const ADMIN_TOKEN = 'sandbox-spec-admin-token';

const CATALOGUE = [
  { code: 'mtn_momo_ug', method: 'MOBILE_MONEY' as const },
  { code: 'card_ug', method: 'CARD' as const },
];

export async function serveSandbox(env: Record<string, string> = {}): Promise<ServedSandbox> {
  const received: ReceivedCallback[] = [];
  const receiver: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      received.push({
        method: request.method ?? '',
        path: request.url ?? '',
        body: body ? JSON.parse(body) : undefined,
      });
      response.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));

  const config = loadConfig({
    ...TEST_RATE_LIMITS,
    STORE_URL: 'pglite://memory',
    BROKER_URL: 'inproc://',
    ADMIN_TOKEN,
    ALLOW_PRIVATE_CALLBACKS: 'true',
    ...env,
  });
  const log = createLogger('sandbox-spec', 'error');
  const infrastructure = await openInfrastructure(config.platform, 'sandbox-spec', log);
  const app = await createHttpApp([SandboxProvidersModule], { config, infrastructure, log });
  const url = await listen(app, 0, '127.0.0.1');
  return {
    url,
    app,
    infrastructure,
    receiver: { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`, received },
    registry: (registryEnv = {}) => createConnectorRegistry(CATALOGUE, registryEnv, url),
    admin: async (path, token = ADMIN_TOKEN) => {
      const response = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } });
      return { status: response.status, body: (await response.json()) as { data: Record<string, unknown> } };
    },
    close: async () => {
      await app.close();
      await infrastructure.close();
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    },
  };
}
