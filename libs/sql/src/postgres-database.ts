import { createHash } from 'node:crypto';
import { Pool, type PoolClient, type QueryConfig } from 'pg';
import type { SqlClient, SqlDatabase } from './sql-database';

export interface PostgresOptions {
  /** Every table lives in this schema (created when missing); tests use one per suite. */
  schema?: string;
  maxConnections?: number;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
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
    throw new Error(`invalid schema name "${schema}" in STORE_URL`);
  }
  const pool = new Pool({
    connectionString: url.toString(),
    max: options.maxConnections ?? 20,
    connectionTimeoutMillis: 5_000,
    options: schema ? `-c search_path=${schema}` : undefined,
  });
  // An idle client losing its server (restart, failover) must not crash the process;
  // the pool discards it and the next query reconnects.
  pool.on('error', () => undefined);
  if (schema) {
    // Processes starting together race to create it: "if not exists" does not stop the loser's
    // unique violation, which only means the schema is there.
    await pool.query(`create schema if not exists ${schema}`).catch((error: { code?: string }) => {
      if (error.code !== UNIQUE_VIOLATION) throw error;
    });
  }
  else await pool.query('select 1');

  const clientOf = (client: PoolClient): SqlClient => ({
    query: async <Row>(text: string, params?: unknown[]) => (await client.query(prepared(text, params))).rows as Row[],
  });

  return {
    engine: 'postgres',
    oneStatementAtATime: false,
    query: async <Row>(text: string, params?: unknown[]) => (await pool.query(prepared(text, params))).rows as Row[],
    queryAhead: async <Row>(text: string, params?: unknown[]) => (await pool.query(prepared(text, params))).rows as Row[],
    async transaction<T>(work: (tx: SqlClient) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      try {
        await client.query('begin');
        const result = await work(clientOf(client));
        await client.query('commit');
        return result;
      } catch (error) {
        await client.query('rollback').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    async withDedicatedConnection<T>(work: (client: SqlClient) => Promise<T>): Promise<T> {
      const client = await pool.connect();
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
    close: () => pool.end(),
  };
}
