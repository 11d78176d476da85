import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CONFIG_SCHEMA, readSetting, redactUrl, type Config, type Env } from '@paygate/config';
import { openEventStore, type EventStore } from '@paygate/event-store';
import { openSqlDatabase, type SqlDatabase } from '@paygate/sql';
import { CliError, oneLine } from './cli-error';

export interface Stores {
  sql: SqlDatabase;
  events: EventStore;
  /** STORE_URL without credentials, for messages. */
  description: string;
  close(): Promise<void>;
}

export interface StoreUrls {
  storeUrl: string;
  eventStoreUrl?: string;
}

/** STORE_URL and EVENT_STORE_URL as the apps read them (same defaults, same checks). */
export function storeUrlsFrom(env: Env): StoreUrls {
  try {
    return {
      storeUrl: readSetting(CONFIG_SCHEMA.platform.storeUrl, env),
      eventStoreUrl: readSetting(CONFIG_SCHEMA.platform.eventStoreUrl, env),
    };
  } catch (error) {
    throw new CliError(oneLine(error));
  }
}

/** KAFKA_TLS_CA_FILE and KAFKA_SASL_* as the apps read them, for a command that writes to Kafka. */
export function kafkaSecurityFrom(env: Env): Config['platform']['kafka'] {
  try {
    const kafka = CONFIG_SCHEMA.platform.kafka;
    return {
      tlsCa: readSetting(kafka.tlsCa, env),
      saslMechanism: readSetting(kafka.saslMechanism, env),
      saslUsername: readSetting(kafka.saslUsername, env),
      saslPassword: readSetting(kafka.saslPassword, env),
    };
  } catch (error) {
    throw new CliError(oneLine(error));
  }
}

/**
 * Opens the configured stores for reading, or fails with one line. A PGlite directory must
 * already hold a database (PGlite would otherwise create an empty one and the command would
 * quietly find nothing), and only one process may have it open: stop `npm start` first.
 */
export async function openStores({ storeUrl, eventStoreUrl }: StoreUrls): Promise<Stores> {
  const description = redactUrl(storeUrl);
  if (storeUrl.startsWith('pglite://')) {
    const dir = storeUrl.slice('pglite://'.length);
    if (dir === 'memory' || dir === '')
      throw new CliError(
        'STORE_URL=pglite://memory holds nothing outside the process that opened it; name a PGlite directory or a PostgreSQL URL',
      );
    if (!existsSync(join(dir, 'PG_VERSION')))
      throw new CliError(`no PGlite database at ${resolve(dir)} (STORE_URL=${description})`, 1);
  }
  let sql: SqlDatabase;
  try {
    sql = await openSqlDatabase(storeUrl, { maxConnections: 4 });
  } catch (error) {
    throw new CliError(`cannot open the store ${description}: ${oneLine(error)}`, 1);
  }
  try {
    const events = await openEventStore(sql, eventStoreUrl);
    await events.ping();
    return {
      sql,
      events,
      description,
      close: async () => {
        await events.close();
        await sql.close();
      },
    };
  } catch (error) {
    await sql.close().catch(() => undefined);
    throw new CliError(
      `cannot open the event store ${eventStoreUrl ? redactUrl(eventStoreUrl) : description}: ${oneLine(error)}`,
      1,
    );
  }
}
