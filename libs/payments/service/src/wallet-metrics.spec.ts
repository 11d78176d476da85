import { JOBS_MIGRATIONS } from '@paygate/jobs';
import { migrate, type SqlDatabase } from '@paygate/sql';
import { describeOnAllSqlEngines, RecordingMetrics } from '@paygate/testing';
import { PAYMENTS_MIGRATIONS } from './migrations';
import { reportWalletInvariants, WALLET_HELD_METRIC, WALLETS_OVERDRAWN_METRIC } from './wallet-metrics';

/** The wallets' money invariants as a scrape reads them from the wallet read model. */
describeOnAllSqlEngines('wallet invariants as gauges', 'wallet_metrics', (open) => {
  let sql: SqlDatabase;
  let close: () => Promise<void>;
  const metrics = new RecordingMetrics();

  beforeAll(async () => {
    ({ db: sql, close } = await open());
    await migrate(sql, [...JOBS_MIGRATIONS, ...PAYMENTS_MIGRATIONS]);
    reportWalletInvariants(metrics, sql);
  });

  afterAll(() => close());

  const wallet = (merchant: string, currency: string, balance: number, available: number) =>
    sql.query(
      'insert into wallet_balances (merchant_id, currency, balance, available, revision) values ($1, $2, $3, $4, 1)',
      [merchant, currency, balance, available],
    );

  it('reports nothing held and no wallet overdrawn before any wallet moved', async () => {
    expect(await metrics.read(WALLET_HELD_METRIC)).toEqual([]);
    expect(await metrics.read(WALLETS_OVERDRAWN_METRIC)).toEqual([{ labels: {}, value: 0 }]);
  });

  it('sums what is held per currency, and counts a wallet whose available amount fell below zero', async () => {
    await wallet('mer_1', 'UGX', 10_000, 7_500);
    await wallet('mer_2', 'UGX', 2_000, 1_500);
    await wallet('mer_2', 'KES', 900, 900);
    expect(await metrics.read(WALLET_HELD_METRIC)).toEqual([
      { labels: { currency: 'KES' }, value: 0 },
      { labels: { currency: 'UGX' }, value: 3_000 },
    ]);
    expect(await metrics.read(WALLETS_OVERDRAWN_METRIC)).toEqual([{ labels: {}, value: 0 }]);

    await wallet('mer_3', 'UGX', 100, -50);
    expect(await metrics.read(WALLETS_OVERDRAWN_METRIC)).toEqual([{ labels: {}, value: 1 }]);
  });
});
