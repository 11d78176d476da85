import type { Metrics } from '@paygate/metrics';
import type { SqlDatabase } from '@paygate/sql';

export const WALLET_HELD_METRIC = 'paygate_wallet_held_minor_units';
export const WALLETS_OVERDRAWN_METRIC = 'paygate_wallets_overdrawn';

/**
 * The wallets' money invariants at every scrape, from wallet_balances (one row per merchant and currency): the amount
 * held for bill payments in flight, per currency, and how many wallets show less available than zero, which the
 * ledger never allows (an alert on anything above 0). Every service-payments pod reports the same values (take the
 * max). Returns a function that stops reporting.
 */
export function reportWalletInvariants(metrics: Metrics, sql: SqlDatabase): () => void {
  const stopHeld = metrics.gauge({
    name: WALLET_HELD_METRIC,
    help: 'Money held in merchant wallets for bill payments in flight (balance minus available), in minor units, by currency.',
    labelNames: ['currency'],
    read: async () =>
      (
        await sql.query<{ currency: string; held: string }>(
          'select currency, sum(balance - available) as held from wallet_balances group by currency order by currency',
        )
      ).map((row) => ({ labels: { currency: row.currency }, value: Number(row.held) })),
  });
  const stopOverdrawn = metrics.gauge({
    name: WALLETS_OVERDRAWN_METRIC,
    help: 'Merchant wallets whose available amount is below zero: the ledger never allows it, so anything above 0 is a fault.',
    labelNames: [],
    read: async () => {
      const [row] = await sql.query<{ overdrawn: string }>(
        'select count(*) as overdrawn from wallet_balances where available < 0',
      );
      return [{ labels: {}, value: Number(row.overdrawn) }];
    },
  });
  return () => {
    stopHeld();
    stopOverdrawn();
  };
}
