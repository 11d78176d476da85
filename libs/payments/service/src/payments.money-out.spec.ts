import { CommandRejectedError, WALLET_STREAM_PREFIX, type WalletStatementPage } from '@paygate/contracts';
import { DeciderRuntime, openEventStore, type EventStore } from '@paygate/event-store';
import { createLogger } from '@paygate/logging';
import type { Metrics } from '@paygate/metrics';
import { servicePaymentDecider, walletLedgerDecider } from '@paygate/payments-domain';
import type { SqlDatabase } from '@paygate/sql';
import { describeOnAllSqlEngines } from '@paygate/testing';
import { PaymentsProjection } from './payments-projection';
import { PaymentsService } from './payments.service';

/**
 * Money out through the payments contract's wallet commands, on a real store of each engine: what the disbursements
 * context asks of a wallet for a refund or payout, and what the merchant's balances and statement then show.
 */
const NOW = new Date('2025-03-01T10:00:00.000Z');
const WALLET = { merchantId: 'mer_1', currency: 'UGX' };
const metrics = {
  counter: () => ({ inc: () => undefined }),
  histogram: () => ({ observe: () => undefined }),
  gauge: () => () => undefined,
} as unknown as Metrics;

describeOnAllSqlEngines('PaymentsService: money-out holds', 'payments_money_out', (open) => {
  let sql: SqlDatabase;
  let close: () => Promise<void>;
  let store: EventStore;
  let service: PaymentsService;
  let projection: PaymentsProjection;

  beforeEach(async () => {
    ({ db: sql, close } = await open());
    store = await openEventStore(sql);
    projection = await PaymentsProjection.open(sql, store, 2_000);
    const retry = { maxAttempts: 1, baseDelayMs: 1_000, maxDelayMs: 60_000 };
    service = new PaymentsService({
      payments: new DeciderRuntime(store, servicePaymentDecider, { oneFlowPerStream: true }),
      wallets: new DeciderRuntime(store, walletLedgerDecider),
      projection,
      biller: () => {
        throw new Error('no biller in these specs');
      },
      config: { biller: { code: 'ura', name: 'URA' } as never, retry, statusPollMs: 2_000, timerTickMs: 100 },
      log: createLogger('payments-money-out-spec', 'error'),
      metrics,
      now: () => NOW,
    });
    await service.topUp({ ...WALLET, amount: 10_000, reference: 'seed' });
  });

  afterEach(() => close());

  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => (error instanceof CommandRejectedError ? error : Promise.reject(error)),
    );

  it('holds what is available, and refuses what is not without changing the wallet', async () => {
    const held = await service.holdMoneyOut({ ...WALLET, kind: 'REFUND', reference: 'r-1', amount: 6_000 });
    expect(held.balance).toEqual({ currency: 'UGX', balance: 10_000, available: 4_000 });

    const refused = await refusal(service.holdMoneyOut({ ...WALLET, kind: 'PAYOUT', reference: 'p-1', amount: 4_001 }));
    expect(refused?.code).toBe('insufficient_funds');
    expect(refused?.details).toMatchObject({ available: 4_000 });
    const again = await service.holdMoneyOut({ ...WALLET, kind: 'PAYOUT', reference: 'p-1', amount: 4_000 });
    expect(again.balance.available).toBe(0);
  });

  it('the same reference is the same hold; another amount under it is a duplicate', async () => {
    await service.holdMoneyOut({ ...WALLET, kind: 'REFUND', reference: 'r-1', amount: 3_000 });
    const repeated = await service.holdMoneyOut({ ...WALLET, kind: 'REFUND', reference: 'r-1', amount: 3_000 });
    expect(repeated.balance.available).toBe(7_000);
    expect(
      (await refusal(service.holdMoneyOut({ ...WALLET, kind: 'REFUND', reference: 'r-1', amount: 1 })))?.code,
    ).toBe('duplicate_reference');
  });

  it('PAID takes the held money out, NOT_PAID gives it back, each once', async () => {
    await service.holdMoneyOut({ ...WALLET, kind: 'REFUND', reference: 'r-1', amount: 3_000 });
    await service.holdMoneyOut({ ...WALLET, kind: 'PAYOUT', reference: 'p-1', amount: 2_000 });
    const paid = await service.settleMoneyOut({ ...WALLET, kind: 'REFUND', reference: 'r-1', outcome: 'PAID' });
    expect(paid.balance).toEqual({ currency: 'UGX', balance: 7_000, available: 5_000 });
    const notPaid = await service.settleMoneyOut({ ...WALLET, kind: 'PAYOUT', reference: 'p-1', outcome: 'NOT_PAID' });
    expect(notPaid.balance).toEqual({ currency: 'UGX', balance: 7_000, available: 7_000 });
    // The provider's word again (a redelivered callback, a second status answer) moves nothing.
    await service.settleMoneyOut({ ...WALLET, kind: 'REFUND', reference: 'r-1', outcome: 'PAID' });
    await service.settleMoneyOut({ ...WALLET, kind: 'PAYOUT', reference: 'p-1', outcome: 'NOT_PAID' });
    expect(
      (await service.holdMoneyOut({ ...WALLET, kind: 'PAYOUT', reference: 'p-2', amount: 7_000 })).balance,
    ).toEqual({ currency: 'UGX', balance: 7_000, available: 0 });
  });

  it('a reversed payout credits the wallet back once; a payout never paid cannot be reversed', async () => {
    await service.holdMoneyOut({ ...WALLET, kind: 'PAYOUT', reference: 'p-1', amount: 4_000 });
    expect((await refusal(service.reversePayout({ ...WALLET, reference: 'p-1' })))?.code).toBe('not_found');
    await service.settleMoneyOut({ ...WALLET, kind: 'PAYOUT', reference: 'p-1', outcome: 'PAID' });
    expect((await service.reversePayout({ ...WALLET, reference: 'p-1' })).balance.balance).toBe(10_000);
    expect((await service.reversePayout({ ...WALLET, reference: 'p-1' })).balance.balance).toBe(10_000);
  });

  it('the statement shows the holds with purpose REFUND and PAYOUT, and the reversal', async () => {
    await service.holdMoneyOut({ ...WALLET, kind: 'REFUND', reference: 'r-1', amount: 1_000 });
    await service.holdMoneyOut({ ...WALLET, kind: 'PAYOUT', reference: 'p-1', amount: 2_000 });
    await service.settleMoneyOut({ ...WALLET, kind: 'PAYOUT', reference: 'p-1', outcome: 'PAID' });
    await service.reversePayout({ ...WALLET, reference: 'p-1' });
    await projection.applyPage(await store.readAll({ streamPrefixes: [WALLET_STREAM_PREFIX] }));
    const { entries } = await service.walletStatement({ merchantId: WALLET.merchantId, limit: 10 });
    expect(entries.map(({ kind, purpose, holdId }) => [kind, purpose, holdId])).toEqual([
      ['money_out_reversal', null, null],
      ['hold_capture', null, 'payout:p-1'],
      ['hold', 'PAYOUT', 'payout:p-1'],
      ['hold', 'REFUND', 'refund:r-1'],
      ['top_up', null, null],
    ]);

    // A page at a time in the wallet's currency: the five lines share one instant, so `after` breaks the tie by entry.
    const pages: (typeof entries)[] = [];
    let after: WalletStatementPage['next'];
    do {
      const page = await service.walletStatement({ merchantId: WALLET.merchantId, currency: 'UGX', limit: 2, after });
      pages.push(page.entries);
      after = page.next;
    } while (after);
    expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
    expect(pages.flat()).toEqual(entries);
  });
});
