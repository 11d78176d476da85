/**
 * paygate_collection_oldest_pending_age_seconds (setup in collections-service-test-setup.ts): how long the oldest
 * collection still open has been, from collection_view, as a scrape reads it.
 */
import { describeOnAllSqlEngines, RecordingMetrics } from '@paygate/testing';
import { internalReferenceOf, MERCHANT, momoRequest, harnessPerSuite } from './collections-service-test-setup';
import { OLDEST_PENDING_METRIC, reportOldestPending } from './pending-collections-metric';

describeOnAllSqlEngines('CollectionsService: the age of the oldest pending collection', 'coll_pending', (engine) => {
  const h = harnessPerSuite({ engine });
  const metrics = new RecordingMetrics();
  const age = async () => (await metrics.read(OLDEST_PENDING_METRIC)).map((sample) => sample.value);

  beforeAll(() => {
    reportOldestPending(metrics, h.projection, () => h.now().getTime());
  });

  it('is 0 while no collection is open, then the age of the oldest open one until it finishes', async () => {
    expect(await age()).toEqual([0]);

    const first = internalReferenceOf(await h.service.initialize({ merchantId: MERCHANT, request: momoRequest() }));
    h.advance(10_000);
    const second = internalReferenceOf(await h.service.initialize({ merchantId: MERCHANT, request: momoRequest() }));
    h.advance(60_000);
    await h.project();
    expect(await age()).toEqual([70]);

    h.momo.outcome = { status: 'SUCCESSFUL', providerTransactionId: 'mtn-tx-1' };
    await h.service.refreshFromProvider(first);
    await h.project();
    expect(await age()).toEqual([60]);

    await h.service.refreshFromProvider(second);
    await h.project();
    expect(await age()).toEqual([0]);
  });
});
