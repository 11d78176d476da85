/**
 * `paygate projections rebuild --verify` underneath: a read model rebuilt from its streams alone,
 * then compared with the live one on the columns events decide, row by row.
 */
import { openEventStore, type EventStore } from '@paygate/event-store';
import { openSqlDatabase, type SqlDatabase } from '@paygate/sql';
import { compareReadModels, rebuildReadModels, type RebuildableReadModel, type RebuildResult } from './read-models';

const BALANCES =
  'create table balances (merchant_id text, currency text, balance bigint, details jsonb, leased_until text, primary key (merchant_id, currency))';

/** Wallet balances from `wallet-` events; `leased_until` is runtime state no event decides. */
const balances: RebuildableReadModel = {
  name: 'balances',
  streamPrefixes: ['wallet-'],
  tables: [{ table: 'balances', key: ['merchant_id', 'currency'], derived: ['balance', 'details'] }],
  async open(target) {
    await target.query(BALANCES);
    return async (event) => {
      const { merchantId, currency, amount } = event.data as { merchantId: string; currency: string; amount: number };
      await target.query(
        `insert into balances (merchant_id, currency, balance, details) values ($1, $2, $3, $4)
         on conflict (merchant_id, currency) do update set balance = balances.balance + excluded.balance, details = excluded.details`,
        [merchantId, currency, amount, JSON.stringify({ last: event.type, streams: [event.streamName] })],
      );
    };
  },
};

const databases: SqlDatabase[] = [];
async function database(): Promise<SqlDatabase> {
  const db = await openSqlDatabase('pglite://memory');
  databases.push(db);
  return db;
}
afterAll(async () => {
  for (const db of databases) await db.close();
});

describe('read models', () => {
  let store: EventStore;
  let rebuilt: SqlDatabase;
  let rebuild: RebuildResult;
  beforeAll(async () => {
    store = await openEventStore(await database());
    await store.appendToStream('wallet-mer_one', [
      { type: 'WalletToppedUp', data: { merchantId: 'mer_one', currency: 'UGX', amount: 50_000 } },
      { type: 'FeeHeld', data: { merchantId: 'mer_one', currency: 'UGX', amount: -1_500 } },
    ]);
    await store.appendToStream('collection-A', [
      { type: 'CollectionInitiated', data: { merchantId: 'mer_one', currency: 'UGX', amount: 999 } },
    ]);
    await store.appendToStream('wallet-mer_two', [
      { type: 'WalletToppedUp', data: { merchantId: 'mer_two', currency: 'USD', amount: 1_250 } },
    ]);
    rebuilt = await database();
    rebuild = await rebuildReadModels(store, rebuilt, [balances]);
    // Two PGlite databases opened and migrated: beside a loaded CI's other suites, more than a minute.
  }, 120_000);

  it("rebuilds from the model's own streams only, to the log's end", async () => {
    const all = await store.readAll({});
    expect(rebuild).toEqual({ events: 3, lastPosition: all[all.length - 1].position });
    expect(
      await rebuilt.query('select merchant_id, currency, balance::int as balance from balances order by merchant_id'),
    ).toEqual([
      { merchant_id: 'mer_one', currency: 'UGX', balance: 48_500 },
      { merchant_id: 'mer_two', currency: 'USD', balance: 1_250 },
    ]);
  });

  describe('compared with the live read model', () => {
    let live: SqlDatabase;
    beforeAll(async () => {
      live = await database();
      await live.query(BALANCES);
    });
    // Each test starts from a live model equal to the rebuilt one, then changes it.
    beforeEach(async () => {
      await live.query('delete from balances');
      await live.query(`insert into balances select * from jsonb_populate_recordset(null::balances, $1::jsonb)`, [
        JSON.stringify(await rebuilt.query('select * from balances')),
      ]);
    });
    const comparison = async () => {
      const [table] = await compareReadModels(live, rebuilt, [balances]);
      return { ...table, differences: [...table.differences].sort((a, b) => a.key.localeCompare(b.key)) };
    };

    it('finds nothing when they agree, whatever the runtime columns and the order of JSON keys', async () => {
      await live.query(
        `update balances set leased_until = '2030-01-01', details = '{"streams": ["wallet-mer_one"], "last": "FeeHeld"}' where merchant_id = 'mer_one'`,
      );
      expect(await comparison()).toEqual({ table: 'balances', liveRows: 2, rebuiltRows: 2, differences: [] });
    });

    it('names each row that differs by its key, with the derived columns that differ', async () => {
      await live.query(`update balances set balance = 2, details = '{}' where merchant_id = 'mer_one'`);
      await live.query(`update balances set balance = 1 where merchant_id = 'mer_two'`);
      expect((await comparison()).differences).toEqual([
        { table: 'balances', key: 'mer_one/UGX', problem: 'differs', columns: ['balance', 'details'] },
        { table: 'balances', key: 'mer_two/USD', problem: 'differs', columns: ['balance'] },
      ]);
    });

    it('names rows only the live model has, and rows it lacks', async () => {
      await live.query(`delete from balances where merchant_id = 'mer_two'`);
      await live.query(
        `insert into balances (merchant_id, currency, balance, details) values ('mer_ghost', 'UGX', 7, '{}')`,
      );
      expect(await comparison()).toEqual({
        table: 'balances',
        liveRows: 2,
        rebuiltRows: 2,
        differences: [
          { table: 'balances', key: 'mer_ghost/UGX', problem: 'only in the live read model' },
          { table: 'balances', key: 'mer_two/USD', problem: 'missing from the live read model' },
        ],
      });
    });
  });
});
