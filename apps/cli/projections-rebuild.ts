import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  CliError,
  compareReadModels,
  openStores,
  rebuildReadModels,
  storeUrlsFrom,
  type RebuildableReadModel,
} from '@paygate/analytics';
import { COLLECTIONS_READ_MODEL } from '@paygate/collections-service';
import { DISBURSEMENTS_READ_MODEL } from '@paygate/disbursements-service';
import { PAYMENTS_READ_MODEL } from '@paygate/payments-service';
import { openSqlDatabase, type SqlDatabase } from '@paygate/sql';
import { DELIVERIES_READ_MODEL } from '@paygate/webhooks-service';
import { parseOptions, type Command } from './command';

/** Every read model derived from events, one per context. */
const READ_MODELS: RebuildableReadModel[] = [
  COLLECTIONS_READ_MODEL,
  PAYMENTS_READ_MODEL,
  DISBURSEMENTS_READ_MODEL,
  DELIVERIES_READ_MODEL,
];

const USAGE = `Usage: paygate projections rebuild [--verify] [--into <schema or directory>]

Rebuilds the read models (collection_view, wallet_balances, service_payment_view, money_out_view
and what of webhook_deliveries follows from events) from the event log into a fresh place, never
touching the live ones: a new schema of STORE_URL's PostgreSQL database, or a new PGlite directory next
to STORE_URL's. Events come from EVENT_STORE_URL when it is set.

  --into <name>   the schema (PostgreSQL) or directory (PGlite) to create; default
                  paygate_rebuild_<time> / <store directory>-rebuild-<time>
  --verify        compare with the live read models and print every difference; exit 1 if any
                  (run it on a quiet system: events appended meanwhile show as differences)`;

const stamp = () => new Date().toISOString().replace(/[-:]/g, '').replace('T', '_').slice(0, 15);

/** A fresh database beside the live one, or a CliError when the place is taken. */
async function openTarget(
  storeUrl: string,
  live: SqlDatabase,
  into: string | undefined,
): Promise<{ db: SqlDatabase; description: string }> {
  if (storeUrl.startsWith('pglite://')) {
    const dir = resolve(into ?? `${storeUrl.slice('pglite://'.length)}-rebuild-${stamp()}`);
    if (existsSync(dir)) throw new CliError(`${dir} exists; --into needs a new directory`);
    return { db: await openSqlDatabase(`pglite://${dir}`), description: `PGlite directory ${dir}` };
  }
  const schema = into ?? `paygate_rebuild_${stamp()}`;
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema))
    throw new CliError(`--into ${JSON.stringify(schema)} is not a schema name (lower-case letters, digits, _)`);
  const [taken] = await live.query('select 1 from information_schema.schemata where schema_name = $1', [schema]);
  if (taken) throw new CliError(`schema ${schema} exists; --into needs a new schema`);
  return { db: await openSqlDatabase(storeUrl, { schema, maxConnections: 2 }), description: `schema ${schema}` };
}

export const projectionsRebuild: Command = {
  name: 'projections rebuild',
  summary: 'rebuild the read models from events into a fresh schema; --verify compares them',
  usage: USAGE,
  async run(args, io) {
    const options = parseOptions('projections rebuild', args, {
      verify: { type: 'boolean' },
      into: { type: 'string' },
    });
    if (options.help) return (io.stdout.write(USAGE + '\n'), 0);
    const urls = storeUrlsFrom(io.env);
    const stores = await openStores(urls);
    try {
      const target = await openTarget(urls.storeUrl, stores.sql, options.into);
      try {
        const rebuilt = await rebuildReadModels(stores.events, target.db, READ_MODELS, { signal: io.signal });
        io.stdout.write(
          `rebuilt ${READ_MODELS.map((model) => model.name).join(', ')} from ${rebuilt.events} events${rebuilt.lastPosition ? ` (through position ${rebuilt.lastPosition})` : ''} into ${target.description}\n`,
        );
        if (!options.verify) return 0;
        const comparisons = await compareReadModels(stores.sql, target.db, READ_MODELS);
        let differences = 0;
        for (const { table, liveRows, rebuiltRows, differences: found } of comparisons) {
          io.stdout.write(`${table}: ${liveRows} live rows, ${rebuiltRows} rebuilt, ${found.length} differences\n`);
          for (const difference of found)
            io.stdout.write(
              `  ${table} ${difference.key}: ${difference.problem}${difference.columns ? ` (${difference.columns.join(', ')})` : ''}\n`,
            );
          differences += found.length;
        }
        if (differences === 0) return 0;
        io.stderr.write(`paygate: ${differences} differences between the live and the rebuilt read models\n`);
        return 1;
      } finally {
        await target.db.close();
      }
    } finally {
      await stores.close();
    }
  },
};
