import type { INestApplication, Type } from '@nestjs/common';
import { loadConfig, type Config } from '@paygate/config';
import { createLogger } from '@paygate/logging';
import {
  createHttpApp,
  listen,
  openInfrastructure,
  refuseTestModeOnlyFeatures,
  shutDown,
  type Infrastructure,
} from '@paygate/platform';
import { startTracing } from '@paygate/tracing';
import { STANDALONE_MODULES } from './modules';

export interface InProcessPaygate {
  url: string;
  app: INestApplication;
  infrastructure: Infrastructure;
  config: Config;
  close(): Promise<void>;
}

/**
 * Everything `npm start` runs (or `modules` of it), in this process (tests: PGlite in memory, short timers). The
 * configuration is loaded once from this process's environment with `env` on top; the store and
 * broker are embedded unless `env` names others. process.env is not changed.
 */
export async function startInProcess(
  env: Record<string, string>,
  modules: Type[] = STANDALONE_MODULES,
): Promise<InProcessPaygate> {
  const config = loadConfig({ ...process.env, STORE_URL: 'pglite://memory', BROKER_URL: 'inproc://', ...env });
  refuseTestModeOnlyFeatures(config, modules);
  const log = createLogger('standalone-test', config.logging.level);
  const tracing = startTracing(config.tracing, 'standalone', log);
  const infrastructure = await openInfrastructure(config.platform, 'standalone-test', log);
  const app = await createHttpApp(modules, { config, infrastructure, log });
  const url = await listen(app, 0, '127.0.0.1');
  return {
    url,
    app,
    infrastructure,
    config,
    // As SIGTERM closes a deployed app, without the delay for load balancers: kept-alive connections (the process's
    // own, to its sandbox, among them) are told to close rather than held open until their idle timeout.
    close: async () => {
      await shutDown(app, infrastructure, { ...config.shutdown, delayMs: 0 }, log);
      await tracing?.shutdown();
    },
  };
}
