import { openSqlDatabase, type SqlDatabase } from '@paygate/sql';
import { describeWithService, uniqueSchema } from './services';

export interface SqlEngineUnderTest {
  db: SqlDatabase;
  /** Closes the database, and on PostgreSQL drops the suite's schema first. */
  close(): Promise<void>;
}

/**
 * Declares `suite` on PGlite (in memory) and, when STORE_URL names one, on PostgreSQL, in a
 * schema of its own so suites share the server safely. `suite` opens its database with `open`.
 */
export function describeOnSqlEngines(
  title: string,
  schemaPrefix: string,
  suite: (open: () => Promise<SqlEngineUnderTest>) => void,
): void {
  declareOn(title, schemaPrefix, suite, false);
}

/** describeOnSqlEngines and SQLite (in memory): for the suites whose adapters have their SQLite statements already. */
export function describeOnAllSqlEngines(
  title: string,
  schemaPrefix: string,
  suite: (open: () => Promise<SqlEngineUnderTest>) => void,
): void {
  declareOn(title, schemaPrefix, suite, true);
}

function declareOn(
  title: string,
  schemaPrefix: string,
  suite: (open: () => Promise<SqlEngineUnderTest>) => void,
  sqlite: boolean,
): void {
  const embedded = (url: string) => async () => {
    const db = await openSqlDatabase(url);
    return { db, close: () => db.close() };
  };
  describe(`${title} on PGlite`, () => suite(embedded('pglite://memory')));
  if (sqlite) describe(`${title} on SQLite`, () => suite(embedded('sqlite://memory')));
  describeWithService('postgres', `${title} on PostgreSQL`, (url) =>
    suite(async () => {
      const schema = uniqueSchema(schemaPrefix);
      const db = await openSqlDatabase(url, { schema });
      const close = async () => {
        await db.query(`drop schema ${schema} cascade`);
        await db.close();
      };
      return { db, close };
    }),
  );
}
