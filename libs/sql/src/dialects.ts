import type { SqlClient } from './sql-database';

/**
 * Now on SQLite, as ISO-8601 UTC text with milliseconds (what `Date.toISOString()` writes): SQLite
 * has no time type, and times written this one way compare and sort as text. A column's default is
 * `default (${SQLITE_NOW})`.
 */
export const SQLITE_NOW = `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`;

/**
 * ` for update` (of `table`) on PostgreSQL, to close a select that reads rows a transaction goes on to
 * change; nothing on SQLite, whose transactions take the database's write lock as they begin (BEGIN IMMEDIATE).
 */
export function forUpdate(client: SqlClient, table?: string): string {
  return client.dialect === 'postgres' ? ` for update${table ? ` of ${table}` : ''}` : '';
}

/** A json or jsonb column's value as a query answers it: PostgreSQL's arrives parsed, SQLite's is JSON text. */
export function fromJson<T>(client: SqlClient, value: unknown): T {
  return (client.dialect === 'sqlite' && typeof value === 'string' ? JSON.parse(value) : value) as T;
}

/** Now, as the engine keeps a time: timestamptz on PostgreSQL, ISO text on SQLite (SQLITE_NOW). */
export function sqlNow(client: SqlClient): string {
  return client.dialect === 'postgres' ? 'now()' : `(${SQLITE_NOW})`;
}

/** ` in` the texts of list parameter `param` (textList): PostgreSQL's array, SQLite's JSON array. */
export function inTextList(client: SqlClient, param: string): string {
  return client.dialect === 'postgres' ? ` = any(${param}::text[])` : ` in (select value from json_each(${param}))`;
}

/** The value of a list parameter that inTextList reads. */
export function textList(client: SqlClient, values: readonly string[]): unknown {
  return client.dialect === 'postgres' ? values : JSON.stringify(values);
}

/**
 * Holds `key` until the transaction `tx` ends, against every other transaction taking it: a transaction-scoped
 * advisory lock on PostgreSQL; nothing on SQLite, whose transactions run one at a time already.
 */
export async function lockInTransaction(tx: SqlClient, key: string): Promise<void> {
  if (tx.dialect === 'postgres') await tx.query('select pg_advisory_xact_lock(hashtext($1))', [key]);
}
