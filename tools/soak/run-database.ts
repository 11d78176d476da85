import { openSqlDatabase } from '@paygate/sql';

export interface RunDatabase {
  /** STORE_URL of the run's own database (or schema). */
  url: string;
  drop(): Promise<void>;
}

/**
 * A fresh database on the server of `storeUrl`, dropped at the end. Not merely a schema: the
 * relays elect their leader with PostgreSQL advisory locks, which are per database, so the apps
 * of another deployment using any schema of the same database would hold the soak's relays off
 * (nothing would ever be published). Without the right to create a database, a fresh schema of
 * the given one, with that caveat said.
 */
export async function createRunDatabase(
  storeUrl: string,
  name: string,
  log: (line: string) => void,
): Promise<RunDatabase> {
  const admin = await openSqlDatabase(storeUrl);
  try {
    await admin.query(`create database ${name}`);
    const url = new URL(storeUrl);
    url.pathname = `/${name}`;
    url.searchParams.delete('schema');
    return {
      url: url.toString(),
      drop: async () => {
        const db = await openSqlDatabase(storeUrl);
        await db.query(`drop database if exists ${name} with (force)`).finally(() => db.close());
      },
    };
  } catch (error) {
    log(
      `cannot create database ${name} (${(error as Error).message}); using schema ${name} of ${new URL(storeUrl).pathname.slice(1)}: another deployment's relays on that database would hold the soak's off`,
    );
    const url = new URL(storeUrl);
    url.searchParams.set('schema', name);
    return {
      url: url.toString(),
      drop: async () => {
        const db = await openSqlDatabase(storeUrl);
        await db.query(`drop schema if exists ${name} cascade`).finally(() => db.close());
      },
    };
  } finally {
    await admin.close();
  }
}
