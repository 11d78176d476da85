import type { INestApplication, Type } from '@nestjs/common';
import { readPlatformConfig } from './config';
import { createHttpApp } from './http/create-http-app';
import { listen } from './http/listen';
import { openInfrastructure, type Infrastructure } from './infrastructure';
import { createLogger } from '@paygate/logging';

/**
 * Process entry shared by every app: validate configuration, open infrastructure (exit 1 with
 * one line naming what failed), serve HTTP, and shut down cleanly on SIGTERM/SIGINT.
 */
export async function runApp(name: string, features: Type[], onListening?: (url: string, app: INestApplication) => Promise<void> | void): Promise<void> {
  const log = createLogger(name);
  let infrastructure: Infrastructure | undefined;
  let app: INestApplication;
  try {
    const config = readPlatformConfig();
    infrastructure = await openInfrastructure(config, name, log);
    // Features validate their own configuration while the app is built; that fails here too.
    app = await createHttpApp(features, infrastructure, log);
    const url = await listen(app, config.port);
    log.info('listening', { url });
    await onListening?.(url, app);
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
    log.info('shutting down', { signal });
    await app.close(); // stops taking requests, runs module destroy hooks (consumers stop, checkpoints saved)
    await opened.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}
