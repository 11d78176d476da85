import type { INestApplication, Type } from '@nestjs/common';
import { loadConfig, type Config, type Env } from '@paygate/config';
import { createLogger, type Logger } from '@paygate/logging';
import { createHttpApp } from './http/create-http-app';
import { listen } from './http/listen';
import { openInfrastructure, type Infrastructure } from './infrastructure';
import { shutDown } from './shutdown';

export interface RunOptions {
  /**
   * Where the configuration comes from; process.env unless a launcher states what it fills in
   * first (standalone: generated secrets, sandbox defaults). Read once, here.
   */
  env?: Env;
  onListening?: (url: string, app: INestApplication, config: Config) => Promise<void> | void;
}

/**
 * Process entry shared by every app: load the configuration once (exit 1 with one line naming
 * a bad variable), open infrastructure (exit 1 with one line naming what failed), serve HTTP,
 * and on SIGTERM/SIGINT drain and exit within SHUTDOWN_TIMEOUT_MS (shutdown.ts): 0 when
 * everything finished, 1 when something was abandoned. Features get the configuration through
 * CONFIG.
 */
export async function runApp(name: string, features: Type[], options: RunOptions = {}): Promise<void> {
  let infrastructure: Infrastructure | undefined;
  let app: INestApplication;
  let log: Logger;
  let config: Config;
  try {
    config = loadConfig(options.env ?? process.env);
    log = createLogger(name, config.logging.level);
    infrastructure = await openInfrastructure(config.platform, name, log);
    // A feature that needs a variable another app may leave unset (MASTER_KEY) says so while the app is built.
    app = await createHttpApp(features, { config, infrastructure, log });
    const url = await listen(app, config.platform.port);
    log.info('listening', { url });
    await options.onListening?.(url, app, config);
  } catch (error) {
    process.stderr.write(`${name}: ${error instanceof Error ? error.message : String(error)}\n`);
    await infrastructure?.close().catch(() => undefined);
    process.exit(1);
  }
  const opened = infrastructure;

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info('shutting down', { signal, shutdown_timeout_ms: config.shutdown.timeoutMs });
    const clean = await shutDown(app, opened, config.shutdown, log);
    if (clean) log.info('shut down');
    process.exit(clean ? 0 : 1);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}
