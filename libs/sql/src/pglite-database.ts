import { mkdirSync } from 'node:fs';
import type { SqlClient, SqlDatabase } from './sql-database';

/** `dataDir` undefined keeps the database in memory (tests). */
export async function openPglite(dataDir: string | undefined): Promise<SqlDatabase> {
  const { PGlite } = await import('@electric-sql/pglite');
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const db = new PGlite(dataDir);
  await db.waitReady;

  const query = async <Row>(client: { query: typeof db.query }, text: string, params?: unknown[]) =>
    (await client.query<Row>(text, params)).rows;

  return {
    engine: 'pglite',
    query: (text, params) => query(db, text, params),
    transaction: (work) => db.transaction((tx) => work({ query: (text, params) => query(tx, text, params) } as SqlClient)),
    withDedicatedConnection: (work) => work({ query: (text, params) => query(db, text, params) } as SqlClient),
    close: () => db.close(),
  };
}
