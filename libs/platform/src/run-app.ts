import type { INestApplication, Type } from '@nestjs/common';
import { ConfigError, loadConfig, type Config, type Env } from '@paygate/config';
import { createLogger, type Logger } from '@paygate/logging';
import { startTracing, type StartedTracing } from '@paygate/tracing';
import { Dependencies } from './dependencies';
import { createHttpApp } from './http/create-http-app';
import { listen } from './http/listen';
import { openStartupListener, type StartupListener } from './http/startup-listener';
import { openInfrastructure, type Infrastructure } from './infrastructure';
import { shutDown } from './shutdown';
import { refuseTestModeOnlyFeatures } from './test-mode-only';

export interface RunOptions {
  /**
   * Where the configuration comes from; process.env unless a launcher states what it fills in
   * first (standalone: generated secrets, sandbox defaults). Read once, here.
   */
  env?: Env;
  onListening?: (url: string, app: INestApplication, config: Config) => Promise<void> | void;
}

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5_000;

/**
 * Process entry shared by every app. A bad configuration (or a port already taken) exits 1 with
 * one line naming it; nothing else does. The port answers at once (live, not ready); the stores
 * and the broker are waited for, each retried until it answers; then the features start (topics,
 * consumer groups, migrations), and a start that fails half-way is undone and tried again. When
 * everything runs the app takes over the port and turns ready. On SIGTERM/SIGINT it drains and
 * exits within SHUTDOWN_TIMEOUT_MS (shutdown.ts): 0 when everything finished, 1 when something
 * was abandoned; a second signal does not cut the drain short.
 */
export async function runApp(name: string, features: Type[], options: RunOptions = {}): Promise<void> {
  let config: Config;
  let log: Logger;
  let dependencies: Dependencies;
  let listener: StartupListener;
  let tracing: StartedTracing | undefined;
  try {
    config = loadConfig(options.env ?? process.env);
    refuseTestModeOnlyFeatures(config, features);
    log = createLogger(name, config.logging.level);
    tracing = startTracing(config.tracing, name, log);
    dependencies = new Dependencies(log);
    const waiting = dependencies;
    listener = await openStartupListener(config.platform.port, config.platform.host, () => waiting.waitingFor());
  } catch (error) {
    return exitWith(name, error);
  }
  log.info('starting', { url: listener.url, ...(tracing && { traces_url: tracing.url }) });

  let running: { app: INestApplication; infrastructure: Infrastructure } | undefined;
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      log.warn('already shutting down; the drain goes on', { signal });
      return;
    }
    stopping = true;
    log.info('shutting down', { signal, shutdown_timeout_ms: config.shutdown.timeoutMs });
    dependencies.stop();
    if (!running) {
      // Still starting: nothing was served, so there is nothing to drain.
      await listener.close();
      log.info('shut down before starting');
      process.exit(0);
    }
    const clean = await shutDown(running.app, running.infrastructure, config.shutdown, log);
    // The last spans (the drain's) go out before the process does; a collector that is gone does not hold the exit.
    await Promise.race([tracing?.shutdown(), new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
    if (clean) log.info('shut down');
    process.exit(clean ? 0 : 1);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));

  try {
    running = await start(features, config, name, log, dependencies);
    const url = await listen(running.app, listener);
    log.info('listening', { url });
    await options.onListening?.(url, running.app, config);
  } catch (error) {
    if (stopping) return;
    await running?.app.close().catch(() => undefined);
    await running?.infrastructure.close().catch(() => undefined);
    return exitWith(name, error);
  }
}

/** Opens the infrastructure and starts the features, until both succeed (or a ConfigError). */
async function start(features: Type[], config: Config, name: string, log: Logger, dependencies: Dependencies) {
  const featuresName = "this app's topics, consumer groups and tables";
  let lastFailure = '';
  for (let delay = FIRST_RETRY_MS; ; delay = Math.min(delay * 2, MAX_RETRY_MS)) {
    let infrastructure: Infrastructure | undefined;
    let app: INestApplication | undefined;
    try {
      infrastructure = await openInfrastructure(config.platform, name, log, dependencies);
      // A feature that needs a variable another app may leave unset (MASTER_KEY) says so while the app is built.
      app = await createHttpApp(features, { config, infrastructure, log });
      await app.init();
      dependencies.up(featuresName);
      return { app, infrastructure };
    } catch (error) {
      if (error instanceof ConfigError || dependencies.stopped) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      // One line per distinct failure: a broker that is still settling fails the same way many times.
      if (reason !== lastFailure) log.warn('start interrupted; undoing it and trying again', { error });
      lastFailure = reason;
      dependencies.down(featuresName, error, { logged: true });
      await app?.close().catch(() => undefined);
      await infrastructure?.close().catch(() => undefined);
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

function exitWith(name: string, error: unknown): never {
  process.stderr.write(`${name}: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
