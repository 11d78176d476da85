/**
 * The disbursements contract's reads of money_out_view (DisbursementsProjection) on a real store of each engine: the
 * merchant's lists a page at a time and filtered, a collection's refunds, and what needs attention.
 */
import { PAYOUT_STREAM_PREFIX, REFUND_STREAM_PREFIX, moneyOutStream } from '@paygate/contracts';
import { moneyOutDecider, type MoneyOutRequest } from '@paygate/disbursements-domain';
import { DeciderRuntime, openEventStore, type EventStore } from '@paygate/event-store';
import { describeOnAllSqlEngines } from '@paygate/testing';
import { DisbursementsProjection } from './disbursements-projection';
import { at, request } from './money-out-test-setup';

const MERCHANT = 'mer_1';
const COLLECTION = 'PG0000000000000000000000AB';

describeOnAllSqlEngines('the money-out reads', 'money_out_reads', (open) => {
  let close: () => Promise<void>;
  let store: EventStore;
  let projection: DisbursementsProjection;

  beforeEach(async () => {
    const opened = await open();
    close = opened.close;
    store = await openEventStore(opened.db);
    projection = await DisbursementsProjection.open(opened.db, store, 1_000);
  });
  afterEach(() => close());

  const moneyOuts = () => new DeciderRuntime(store, moneyOutDecider);
  const requested = (
    kind: 'REFUND' | 'PAYOUT',
    reference: string,
    seconds: number,
    more: Partial<MoneyOutRequest> = {},
  ) =>
    moneyOuts().handle(moneyOutStream(kind, MERCHANT, reference), {
      type: 'Request',
      request: { ...request(kind, reference, at(seconds)), ...more },
    });
  const project = async () =>
    projection.applyPage(await store.readAll({ streamPrefixes: [REFUND_STREAM_PREFIX, PAYOUT_STREAM_PREFIX] }));

  it('lists payouts newest first a page at a time, by provider and by time, and finds one', async () => {
    await requested('PAYOUT', 'p-1', 0);
    await requested('PAYOUT', 'p-2', 10, { providerCode: 'airtel_ug' });
    await requested('PAYOUT', 'p-3', 20);
    await requested('PAYOUT', 'p-4', 20);
    await project();
    const references = (page: { payouts: { payout_reference: string }[] }) =>
      page.payouts.map((payout) => payout.payout_reference);

    const first = await projection.listPayouts({ merchantId: MERCHANT, limit: 2 });
    expect(references(first)).toEqual(['p-4', 'p-3']);
    const rest = await projection.listPayouts({ merchantId: MERCHANT, limit: 2, after: first.next });
    expect(references(rest)).toEqual(['p-2', 'p-1']);
    expect(rest.next).toBeUndefined();
    expect(
      references(await projection.listPayouts({ merchantId: MERCHANT, limit: 10, providerCode: 'airtel_ug' })),
    ).toEqual(['p-2']);
    expect(
      references(await projection.listPayouts({ merchantId: MERCHANT, limit: 10, from: at(10), to: at(20) })),
    ).toEqual(['p-2']);
    expect(await projection.listPayouts({ merchantId: 'mer_other', limit: 10 })).toEqual({ payouts: [] });
    expect((await projection.findPayout({ merchantId: MERCHANT, payoutReference: 'p-3' }))?.created_at).toBe(at(20));
  });

  it("lists a collection's refunds, sums what the completed ones returned, and shows the flagged one", async () => {
    await requested('REFUND', 'r-1', 0);
    await requested('REFUND', 'r-2', 5);
    await moneyOuts().handle(moneyOutStream('REFUND', MERCHANT, 'r-1'), {
      type: 'RecordCompleted',
      providerTransactionId: 'm-1',
      at: at(30),
    });
    await moneyOuts().handle(moneyOutStream('REFUND', MERCHANT, 'r-2'), { type: 'Flag', at: at(60) });
    await project();

    const { refunds } = await projection.listRefunds({
      merchantId: MERCHANT,
      internalReference: COLLECTION,
      limit: 10,
    });
    expect(refunds.map((refund) => [refund.refund_reference, refund.status])).toEqual([
      ['r-2', 'PENDING'],
      ['r-1', 'COMPLETED'],
    ]);
    expect(await projection.refundedAmount(MERCHANT, COLLECTION)).toBe(1_000);
    expect(await projection.refundedAmount(MERCHANT, 'PG0000000000000000000000ZZ')).toBe(0);
    expect(await projection.needingAttention(10, MERCHANT)).toHaveLength(1);
    expect(await projection.needingAttention(10, 'mer_other')).toEqual([]);
  });
});
