/**
 * The collections service's reads for the merchant dashboard (setup in collections-service-test-setup.ts): a
 * collection's timeline from its stream, and the activity counted from collection_view.
 */
import { CommandRejectedError } from '@paygate/contracts';
import { internalReferenceOf, MERCHANT, momoRequest, harnessPerSuite } from './collections-service-test-setup';

describe('CollectionsService: what the dashboard reads', () => {
  const h = harnessPerSuite();

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
});
