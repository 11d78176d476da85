/**
 * A wallet stream written by the release before WalletHoldPlaced version 2, in a real store:
 * the runtime reads its hold upcast (purpose, collection) and decides on it, and the balances
 * projection folds it to the same balances as before.
 */
import { walletId, walletStream } from '@paygate/contracts';
import { WALLET_EVENT_TYPES as EVENTS, feeHoldId, walletLedgerDecider } from '@paygate/payments-domain';
import { DeciderRuntime, SqlEventStore } from '@paygate/event-store';
import { openSqlDatabase, type SqlDatabase } from '@paygate/sql';
import { PaymentsProjection } from './payments-projection';

const WALLET = { merchantId: 'merchant-upcast', currency: 'UGX' };
const REF = 'PGUPCAST0000000000000001';
const T0 = '2025-03-01T10:00:00.000Z';

describe('a version 1 wallet stream in the store', () => {
  let sql: SqlDatabase;
  let store: SqlEventStore;

  beforeAll(async () => {
    sql = await openSqlDatabase('pglite://memory');
    store = await SqlEventStore.create(sql);
    // Exactly what the previous release appended: schemaVersion 1, a hold without a purpose.
    await store.appendToStream(walletStream(WALLET), [
      {
        type: EVENTS.toppedUp,
        data: {
          ...WALLET,
          transfer: {
            transferId: 'top-1',
            debitAccount: 'top_up:UGX',
            creditAccount: 'merchant_wallet:merchant-upcast:UGX',
            amount: 5_000,
            currency: 'UGX',
          },
          toppedUpAt: T0,
        },
        metadata: { schemaVersion: 1 },
      },
      {
        type: EVENTS.holdPlaced,
        data: { ...WALLET, holdId: feeHoldId(REF), amount: 1_500, placedAt: T0 },
        metadata: { schemaVersion: 1 },
      },
    ]);
  });
  afterAll(() => sql.close());

  it('is read upcast, decided on, and appended to at version 2', async () => {
    const runtime = new DeciderRuntime(store, walletLedgerDecider);
    const loaded = await runtime.load(walletId(WALLET));
    expect(loaded.events[1].data).toEqual({
      ...WALLET,
      holdId: feeHoldId(REF),
      amount: 1_500,
      placedAt: T0,
      purpose: 'FEE',
      internalReference: REF,
    });
    expect(loaded.state).toMatchObject({ balance: 5_000, held: 1_500, available: 3_500 });

    await runtime.handle(walletId(WALLET), { type: 'ReleaseHold', wallet: WALLET, holdId: feeHoldId(REF), at: T0 });
    const stored = await store.readStream(walletStream(WALLET));
    expect(stored.map((event) => [event.type, event.metadata.schemaVersion])).toEqual([
      [EVENTS.toppedUp, 1],
      [EVENTS.holdPlaced, 1],
      [EVENTS.holdReleased, 2],
    ]);
  });

  it('is projected to the balances it always meant', async () => {
    const projection = await PaymentsProjection.open(sql, store, 60_000);
    for (const event of await store.readStream(walletStream(WALLET))) await projection.apply(event);
    expect(await projection.walletBalances(WALLET.merchantId)).toEqual([
      { currency: 'UGX', balance: 5_000, available: 5_000 },
    ]);
  });
});
