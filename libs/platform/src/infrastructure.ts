import { instrumentEventStore, openEventStore, type EventStore } from '@paygate/event-store';
import { COLLECTIONS_SERVICE, PAYMENTS_SERVICE, DISBURSEMENTS_SERVICE, WEBHOOKS_SERVICE } from '@paygate/contracts';
import {
  kafkaConnection,
  listenAddress,
  openMessaging,
  parseCommandAddress,
  readCommandTls,
  type CommandBus,
  type CommandRoutes,
  type EventBus,
} from '@paygate/messaging';
import { countStatements, openSqlDatabase, verifyMigrationsOnly, type SqlDatabase } from '@paygate/sql';
import { ConfigError, redactUrl, type Config } from '@paygate/config';
import type { Logger } from '@paygate/logging';
import { tracingIsOn } from '@paygate/tracing';
import { Dependencies } from './dependencies';
import { reportReadiness } from './metrics/readiness';
import { PrometheusMetrics } from './metrics/prometheus-metrics';

/**
 * What every app gets: the SQL store, the event store and the broker, opened from URLs, and the
 * process's metrics registry they all record into.
 */
export interface Infrastructure {
  sql: SqlDatabase;
  store: EventStore;
  commands: CommandBus;
  events: EventBus;
  metrics: PrometheusMetrics;
  /** Dependencies that do not answer right now (checked every second); empty when all do. */
  waitingFor(): string[];
  /** Closes the broker, then the stores; `closing` hears which one it is waiting for. */
  close(closing?: (what: string) => void): Promise<void>;
}

/** The infrastructure URLs (STORE_URL, EVENT_STORE_URL, BROKER_URL), PORT and MIGRATE_ON_START. */
export type PlatformConfig = Config['platform'];

export class StartupError extends Error {
  override readonly name = 'StartupError';
}

/**
 * The command addresses and credentials, each checked here so a bad one stops the start naming
 * its variable. Between processes every command connection is mutual TLS: an app in distributed
 * mode does not start without its certificate.
 */
function commandRoutes(config: PlatformConfig): CommandRoutes {
  if (!config.commandsTlsDir)
    throw new ConfigError(
      'COMMANDS_TLS_DIR',
      "is not set: with Kafka (kafka:// or kafkas://) the apps are separate processes and authenticate each other's commands with mutual TLS (give this app's folder holding ca.crt, tls.crt and tls.key; scripts/certs.sh --apps makes one per app)",
    );
  const routes: [string, string, string][] = [
    [COLLECTIONS_SERVICE.name, 'COLLECTIONS_COMMANDS_URL', config.collectionsCommandsUrl],
    [PAYMENTS_SERVICE.name, 'PAYMENTS_COMMANDS_URL', config.paymentsCommandsUrl],
    // The disbursements context is served by the service-payments app, beside the wallet it holds money on.
    [DISBURSEMENTS_SERVICE.name, 'PAYMENTS_COMMANDS_URL', config.paymentsCommandsUrl],
    [WEBHOOKS_SERVICE.name, 'WEBHOOKS_COMMANDS_URL', config.webhooksCommandsUrl],
  ];
  const services: Record<string, string> = {};
  for (const [service, variable, url] of routes) services[service] = checked(variable, url, parseCommandAddress);
  return {
    listenUrl: checked('COMMANDS_LISTEN_URL', config.commandsListenUrl, listenAddress),
    services,
    tls: readCommandTls(config.commandsTlsDir),
  };
}

function checked(variable: string, url: string, parse: (url: string) => unknown): string {
  try {
    parse(url);
    return url;
  } catch (error) {
    throw new ConfigError(variable, (error as Error).message);
  }
}

/** Opens one dependency: once (an error names it), or until it answers when a Dependencies waits for it. */
type Opener = <T>(name: string, open: () => Promise<T>) => Promise<T>;

function openOnce<T>(name: string, open: () => Promise<T>): Promise<T> {
  return open().catch((error: unknown) => {
    if (error instanceof ConfigError) throw error;
    throw new StartupError(`cannot reach ${name}: ${error instanceof Error ? error.message : String(error)}`);
  });
}

/**
 * Opens the stores and the broker. With `wait`, a dependency that does not answer is retried
 * (capped backoff, one log line while waiting) until it does, so apps start in any order; without
 * it (tests, tools), the first failure throws naming the dependency. Either way the returned
 * infrastructure keeps checking each dependency for readiness.
 */
export async function openInfrastructure(
  config: PlatformConfig,
  clientId: string,
  log: Logger,
  wait?: Dependencies,
): Promise<Infrastructure> {
  // kafka:// or kafkas://: the apps are separate processes, and commands cross the network.
  const distributed = config.brokerUrl.startsWith('kafka');
  if (distributed) {
    try {
      kafkaConnection(config.brokerUrl, config.kafka);
    } catch (error) {
      throw new ConfigError('BROKER_URL', (error as Error).message);
    }
  }
  // Read before anything is opened: a missing certificate is a configuration error, not a dependency to wait for.
  const routes = distributed ? commandRoutes(config) : undefined;
  const opening: Opener = wait
    ? (name, open) => wait.until(name, open, (error) => error instanceof ConfigError)
    : openOnce;
  const dependencies = wait ?? new Dependencies(log);
  const storeName = `STORE_URL ${redactUrl(config.storeUrl)}`;
  const brokerName = `BROKER_URL ${redactUrl(config.brokerUrl)}`;
  const eventStoreName = config.eventStoreUrl
    ? `EVENT_STORE_URL ${redactUrl(config.eventStoreUrl)}`
    : 'the event store (STORE_URL)';
  // Tracing is started before the infrastructure: with it on, latency histograms carry exemplars naming traces.
  const metrics = new PrometheusMetrics(log, tracingIsOn());
  reportReadiness(metrics, () => dependencies.waitingFor());
  const sql = countStatements(
    await opening(storeName, () => openSqlDatabase(config.storeUrl, { maxConnections: config.storePoolSize })),
    metrics,
  );
  if (!config.migrateOnStart) verifyMigrationsOnly(sql);
  try {
    const store = instrumentEventStore(
      await opening(eventStoreName, () =>
        openChecked(
          () => openEventStore(sql, config.eventStoreUrl),
          (opened) => opened.ping(),
        ),
      ),
      metrics,
    );
    const messaging = await opening(brokerName, () =>
      openChecked(
        () =>
          openMessaging(
            config.brokerUrl,
            { store, sql, log, metrics },
            { clientId, commandTimeoutMs: config.commandTimeoutMs, commandRoutes: routes, kafka: config.kafka },
          ),
        (opened) => opened.events.ping(),
      ),
    ).catch(async (error: unknown) => {
      await store.close().catch(() => undefined);
      throw error;
    });
    dependencies.watch([
      { name: storeName, check: () => sql.ping() },
      { name: eventStoreName, check: () => store.ping() },
      { name: brokerName, check: () => messaging.events.ping() },
    ]);
    return {
      sql,
      store,
      commands: messaging.commands,
      events: messaging.events,
      metrics,
      waitingFor: () => dependencies.waitingFor(),
      close: async (closing = () => undefined) => {
        // The caller's waits (`wait`) outlive this infrastructure: a start undone half-way opens another with them.
        if (wait) dependencies.unwatch();
        else dependencies.stop();
        closing(`the broker connection (${brokerName})`);
        await messaging.close();
        closing('the event store connection');
        await store.close();
        closing(`the SQL store connection (${storeName})`);
        await sql.close();
      },
    };
  } catch (error) {
    await sql.close().catch(() => undefined);
    throw error;
  }
}

/** Opens something and checks that it answers; closes it again when it does not. */
async function openChecked<T extends { close(): Promise<void> }>(
  open: () => Promise<T>,
  check: (opened: T) => Promise<unknown>,
): Promise<T> {
  const opened = await open();
  try {
    await check(opened);
    return opened;
  } catch (error) {
    await opened.close().catch(() => undefined);
    throw error;
  }
}
