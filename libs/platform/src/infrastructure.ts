import { instrumentEventStore, openEventStore, type EventStore } from '@paygate/event-store';
import { openMessaging, parseKafkaUrl, type CommandBus, type EventBus } from '@paygate/messaging';
import { openSqlDatabase, verifyMigrationsOnly, type SqlDatabase } from '@paygate/sql';
import { ConfigError, redactUrl, type Config } from '@paygate/config';
import type { Logger } from '@paygate/logging';
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
  /** Store and broker both answer. */
  ready(): Promise<void>;
  /** Closes the broker, then the stores; `closing` hears which one it is waiting for. */
  close(closing?: (what: string) => void): Promise<void>;
}

/** The infrastructure URLs (STORE_URL, EVENT_STORE_URL, BROKER_URL), PORT and MIGRATE_ON_START. */
export type PlatformConfig = Config['platform'];

export class StartupError extends Error {
  override readonly name = 'StartupError';
}

async function step<T>(what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new StartupError(`${what}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

export async function openInfrastructure(config: PlatformConfig, clientId: string, log: Logger): Promise<Infrastructure> {
  if (config.brokerUrl.startsWith('kafka://')) {
    try {
      parseKafkaUrl(config.brokerUrl);
    } catch (error) {
      throw new ConfigError('BROKER_URL', (error as Error).message);
    }
  }
  const metrics = new PrometheusMetrics(log);
  const sql = await step(`cannot open STORE_URL ${redactUrl(config.storeUrl)}`, () => openSqlDatabase(config.storeUrl));
  if (!config.migrateOnStart) verifyMigrationsOnly(sql);
  try {
    const store = await step('cannot open the event store', async () => {
      const opened = await openEventStore(sql, config.eventStoreUrl);
      await opened.ping();
      return instrumentEventStore(opened, metrics);
    });
    const messaging = await step(`cannot reach BROKER_URL ${redactUrl(config.brokerUrl)}`, async () => {
      const opened = await openMessaging(config.brokerUrl, { store, sql, log, metrics }, { clientId });
      await opened.events.ping().catch(async (error: unknown) => {
        await opened.close().catch(() => undefined);
        throw error;
      });
      return opened;
    });
    return {
      sql,
      store,
      commands: messaging.commands,
      events: messaging.events,
      metrics,
      ready: async () => {
        await store.ping();
        await sql.query('select 1');
        await messaging.events.ping();
      },
      close: async (closing = () => undefined) => {
        closing(`the broker connection (BROKER_URL ${redactUrl(config.brokerUrl)})`);
        await messaging.close();
        closing('the event store connection');
        await store.close();
        closing(`the SQL store connection (STORE_URL ${redactUrl(config.storeUrl)})`);
        await sql.close();
      },
    };
  } catch (error) {
    await sql.close().catch(() => undefined);
    throw error;
  }
}
