import { CliError, oneLine, storeUrlsFrom } from '@paygate/analytics';
import { redactUrl } from '@paygate/config';
import { migrate, openSqlDatabase, type SqlDatabase } from '@paygate/sql';
import { parseOptions, type Command } from './command';
import { paygateMigrations } from './migrations';

const USAGE = `Usage: paygate migrate [--sandbox]

Applies every database migration STORE_URL lacks, in one global order, and prints each one
applied. It holds an advisory lock while it applies, so it is safe beside apps that are
starting and safe to run twice. Run it before apps that start with MIGRATE_ON_START=false
(the chart's hook Job does: migrations.job.enabled). The event tables are left out while
EVENT_STORE_URL is set (events then live in KurrentDB).

  --sandbox   also the sandbox providers' tables (for a release that runs the sandbox)`;

/** `paygate migrate`: the schema step SREs run as a Job, apart from the apps' start. */
export const migrateCommand: Command = {
  name: 'migrate',
  summary: 'apply the database migrations STORE_URL lacks (before apps with MIGRATE_ON_START=false)',
  usage: USAGE,
  async run(args, io) {
    const options = parseOptions('migrate', args, { sandbox: { type: 'boolean' } });
    if (options.help) return (io.stdout.write(USAGE + '\n'), 0);
    const { storeUrl, eventStoreUrl } = storeUrlsFrom(io.env);
    const migrations = paygateMigrations({
      eventsInSql: eventStoreUrl === undefined,
      sandbox: options.sandbox === true,
    });
    let sql: SqlDatabase;
    try {
      sql = await openSqlDatabase(storeUrl, { maxConnections: 2 });
    } catch (error) {
      throw new CliError(`cannot open the store ${redactUrl(storeUrl)}: ${oneLine(error)}`, 1);
    }
    try {
      const applied = await migrate(sql, migrations);
      for (const migration of applied) io.stdout.write(`applied ${migration.id}\n`);
      io.stdout.write(`${applied.length} applied, ${migrations.length - applied.length} already in place\n`);
      return 0;
    } finally {
      await sql.close();
    }
  },
};
