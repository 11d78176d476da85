import { openPglite } from './pglite-database';
import { openPostgres, type PostgresOptions } from './postgres-database';
import { openSqlite } from './sqlite-database';
import type { SqlDatabase } from './sql-database';

/**
 * Chooses the adapter by URL: `pglite://<dir>` (or `pglite://memory`) embeds PostgreSQL in
 * process; `sqlite://<file>` (or `sqlite://memory`) embeds SQLite; `postgres://` /
 * `postgresql://` connects to a server.
 */
export async function openSqlDatabase(url: string, options: PostgresOptions = {}): Promise<SqlDatabase> {
  const scheme = url.slice(0, url.indexOf('://'));
  switch (scheme) {
    case 'pglite': {
      const location = url.slice('pglite://'.length);
      return openPglite(location === 'memory' || location === '' ? undefined : location);
    }
    case 'sqlite': {
      const location = url.slice('sqlite://'.length);
      return openSqlite(location === 'memory' || location === '' ? undefined : location);
    }
    case 'postgres':
    case 'postgresql':
      return openPostgres(url, options);
    default:
      throw new Error(`unsupported store URL scheme "${scheme || url}" (expected pglite://, sqlite:// or postgres://)`);
  }
}
