import type { INestApplication } from '@nestjs/common';
import { CollectionsServiceModule } from '@paygate/collections-service';
import { GatewayHttpModule } from '@paygate/gateway-http';
import { createLogger } from '@paygate/logging';
import { createHttpApp, listen, openInfrastructure, readPlatformConfig, type Infrastructure } from '@paygate/platform';
import { SandboxProvidersModule } from '@paygate/sandbox-providers';
import { WebhooksServiceModule } from '@paygate/webhooks-service';

export interface InProcessPaygate {
  url: string;
  app: INestApplication;
  infrastructure: Infrastructure;
  close(): Promise<void>;
}

/** Everything `npm start` runs, in this process, on `env` (tests: PGlite in memory, short timers). */
export async function startInProcess(env: Record<string, string>): Promise<InProcessPaygate> {
  Object.assign(process.env, env);
  const config = readPlatformConfig({ STORE_URL: 'pglite://memory', BROKER_URL: 'inproc://', ...env });
  const log = createLogger('standalone-test');
  const infrastructure = await openInfrastructure(config, 'standalone-test', log);
  const app = await createHttpApp([GatewayHttpModule, CollectionsServiceModule, WebhooksServiceModule, SandboxProvidersModule], infrastructure, log);
  const url = await listen(app, 0, '127.0.0.1');
  return {
    url,
    app,
    infrastructure,
    close: async () => {
      await app.close();
      await infrastructure.close();
    },
  };
}
