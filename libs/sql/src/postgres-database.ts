import { createHash } from 'node:crypto';
import { Pool, type PoolClient, type QueryConfig } from 'pg';
import { ConfigError } from '@paygate/config';
import { UnavailableError } from '@paygate/contracts';
import { PostgresListener } from './postgres-listener';
import type { SqlClient, SqlDatabase } from './sql-database';

export interface PostgresOptions {
  /** Every table lives in this schema (created when missing); tests use one per suite. */
  schema?: string;
  maxConnections?: number;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** `url` with the `schema` parameter openPostgres reads: every table of whoever opens it lives in `schema`. */
export function postgresUrlInSchema(url: string, schema: string): string {
  return `${url}${url.includes('?') ? '&' : '?'}schema=${schema}`;
}
/** SQLSTATEs that mean "the server is not there right now", not "this statement is wrong". */
const UNAVAILABLE_STATES = /^(08...|57P0[123]|53300)$/;
const UNAVAILABLE_SOCKET_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const UNAVAILABLE_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Query read timeout)/;

/**
 * A lost or refused connection becomes UnavailableError (callers answer "try again"); anything else is left as it is.
 */
function unavailableOr(error: unknown): unknown {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const lost =
    (typeof code === 'string' && (UNAVAILABLE_STATES.test(code) || UNAVAILABLE_SOCKET_ERRORS.has(code))) ||
    (typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message));
  return lost ? new UnavailableError('the database is not reachable', { cause: error }) : error;
}

const rethrow = (error: unknown): never => {
  throw unavailableOr(error);
};
const UNIQUE_VIOLATION = '23505';

/**
 * Every statement is prepared once per connection (named by its text's hash): the hot paths
 * run a handful of fixed statements, and skipping parse/plan per call is most of their cost.
 */
const statementNames = new Map<string, string>();
function prepared(text: string, values?: unknown[]): QueryConfig {
  let name = statementNames.get(text);
  if (!name) {
    name = `s${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    statementNames.set(text, name);
  }
  return { name, text, values };
}

export async function openPostgres(connectionString: string, options: PostgresOptions = {}): Promise<SqlDatabase> {
  const url = new URL(connectionString);
  const schema = options.schema ?? url.searchParams.get('schema') ?? undefined;
  url.searchParams.delete('schema');
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
    throw new ConfigError('STORE_URL', `has an invalid schema name "${schema}"`);
  }
  const connection = {
    connectionString: url.toString(),
    connectionTimeoutMillis: 5_000,
    options: schema ? `-c search_path=${schema}` : undefined,
  };
  const pool = new Pool({ ...connection, max: options.maxConnections ?? 20 });
  const listener = new PostgresListener(connection);
  // A client losing its server (restart, failover, a cut network) must not crash the process:
  // idle ones the pool discards, and one in use fails its query, which rejects; without a
  // listener of its own, a checked-out client's 'error' event would be thrown.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  try {
    if (schema) {
      // Processes starting together race to create it: "if not exists" does not stop the loser's
      // unique violation, which only means the schema is there.
      await pool.query(`create schema if not exists ${schema}`).catch((error: { code?: string }) => {
        if (error.code !== UNIQUE_VIOLATION) throw error;
      });
    } else await pool.query('select 1');
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }

  const clientOf = (client: PoolClient): SqlClient => ({
    dialect: 'postgres',
    query: async <Row>(text: string, params?: unknown[]) =>
      (await client.query(prepared(text, params)).catch(rethrow)).rows as Row[],
  });
  const connect = () => pool.connect().catch(rethrow);

  return {
    engine: 'postgres',
    dialect: 'postgres',
    oneStatementAtATime: false,
    shared: true,
    query: async <Row>(text: string, params?: unknown[]) =>
      (await pool.query(prepared(text, params)).catch(rethrow)).rows as Row[],
    queryAhead: async <Row>(text: string, params?: unknown[]) =>
      (await pool.query(prepared(text, params)).catch(rethrow)).rows as Row[],
    async transaction<T>(work: (tx: SqlClient) => Promise<T>): Promise<T> {
      const client = await connect();
      try {
        await client.query('begin').catch(rethrow);
        const result = await work(clientOf(client));
        await client.query('commit').catch(rethrow);
        return result;
      } catch (error) {
        await client.query('rollback').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    async withDedicatedConnection<T>(work: (client: SqlClient) => Promise<T>): Promise<T> {
      const client = await connect();
      let broken = false;
      try {
        return await work(clientOf(client));
      } catch (error) {
        broken = true;
        throw error;
      } finally {
        // Destroying the connection releases any session-level lock it still holds.
        client.release(broken ? true : undefined);
      }
    },
    listen: (channel, onNotify) => listener.listen(channel, onNotify),
    ping: async () => {
      await pool.query('select 1').catch(rethrow);
    },
    close: async () => {
      await listener.close();
      await pool.end();
    },
  };
}
