/**
 * The collections service's reads for the merchant dashboard (setup in collections-service-test-setup.ts): a
 * collection's timeline from its stream, and the activity counted from collection_view.
 */
import { CommandRejectedError } from '@paygate/contracts';
import { describeOnAllSqlEngines } from '@paygate/testing';
import { internalReferenceOf, MERCHANT, momoRequest, harnessPerSuite } from './collections-service-test-setup';

describeOnAllSqlEngines('CollectionsService: what the dashboard reads', 'coll_reads', (engine) => {
  const h = harnessPerSuite({ engine });

  it("answers a collection's timeline from its events, and not_found to another merchant", async () => {
    h.momo.outcome = { status: 'SUCCESSFUL', providerTransactionId: 'mtn-tx-1' };
    const ref = internalReferenceOf(await h.service.initialize({ merchantId: MERCHANT, request: momoRequest() }));
    h.advance(5_000);
    await h.service.refreshFromProvider(ref);

    const { entries } = await h.service.queries.timeline({ merchantId: MERCHANT, internalReference: ref });
    expect(entries.map((entry) => entry.event)).toEqual([
      'Collection initiated',
      'Collection confirmed',
      'PIN prompt sent',
      'Collection completed',
    ]);
    expect(entries.at(-1)?.at).toBe(h.now().toISOString());
    await expect(
      h.service.queries.timeline({ merchantId: 'mer_other', internalReference: ref }),
    ).rejects.toBeInstanceOf(CommandRejectedError);
  });

  it('counts and sums collections by day, status and currency since an instant, for one merchant only', async () => {
    const since = h.now().toISOString();
    h.momo.outcome = { status: 'PENDING' };
    await h.service.initialize({ merchantId: MERCHANT, request: momoRequest() });
    await h.service.initialize({ merchantId: MERCHANT, request: momoRequest() });
    await h.service.initialize({ merchantId: 'mer_other', request: momoRequest() });
    h.advance(24 * 3_600_000);
    await h.service.initialize({ merchantId: MERCHANT, request: momoRequest() });
    await h.project();

    const { rows } = await h.service.queries.activity({ merchantId: MERCHANT, since });
    const day = (date: Date) => date.toISOString().slice(0, 10);
    const yesterday = new Date(h.now().getTime() - 24 * 3_600_000);
    expect(rows).toEqual([
      { day: day(yesterday), status: 'PENDING', currency: 'UGX', count: 2, amount: 2 * 81_000 },
      { day: day(h.now()), status: 'PENDING', currency: 'UGX', count: 1, amount: 81_000 },
    ]);
  });

  it('lists a merchant’s collections newest first, a page at a time, filtered, and finds one by either reference', async () => {
    const merchantId = 'mer_lists';
    const references: string[] = [];
    while (references.length < 3) {
      references.push(internalReferenceOf(await h.service.initialize({ merchantId, request: momoRequest() })));
      h.advance(1_000);
    }
    await h.project();
    const [oldest, middle, newest] = references;

    const first = await h.service.queries.list({ merchantId, limit: 2 });
    expect(first.records.map((record) => record.internal_reference)).toEqual([newest, middle]);
    const second = await h.service.queries.list({ merchantId, limit: 2, after: first.next });
    expect(second).toEqual({ records: [expect.objectContaining({ internal_reference: oldest })] });
    expect((await h.service.queries.list({ merchantId, limit: 10, status: 'COMPLETED' })).records).toEqual([]);

    const found = await h.service.queries.find({ merchantId, internalReference: middle });
    expect(found.record.internal_reference).toBe(middle);
    expect(
      (await h.service.queries.find({ merchantId, merchantReference: found.record.merchant_reference })).record,
    ).toEqual(found.record);
  });
});
