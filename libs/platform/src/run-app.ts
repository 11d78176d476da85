import type { Type } from '@nestjs/common';
import { readPlatformConfig } from './config';
import { createHttpApp } from './http/create-http-app';
import { openInfrastructure, type Infrastructure } from './infrastructure';
import { createLogger } from '@paygate/logging';

/**
 * Process entry shared by every app: validate configuration, open infrastructure (exit 1 with
 * one line naming what failed), serve HTTP, and shut down cleanly on SIGTERM/SIGINT.
 */
export async function runApp(name: string, features: Type[], onListening?: (url: string, infrastructure: Infrastructure) => void): Promise<void> {
  const log = createLogger(name);
  let infrastructure: Infrastructure;
  let port: number;
  try {
    const config = readPlatformConfig();
    port = config.port;
    infrastructure = await openInfrastructure(config, name, log);
  } catch (error) {
    process.stderr.write(`${name}: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
  const app = await createHttpApp(features, infrastructure, log);
  await app.listen(port, '0.0.0.0');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1').replace('0.0.0.0', '127.0.0.1');
  log.info('listening', { url });
  onListening?.(url, infrastructure);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info('shutting down', { signal });
    await app.close(); // stops taking requests, runs module destroy hooks (consumers stop, checkpoints saved)
    await infrastructure.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}
