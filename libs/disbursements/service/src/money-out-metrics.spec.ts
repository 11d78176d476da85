/**
 * What an SRE sees of money out at a scrape: per kind, the age of the oldest refund or payout still waiting for its
 * provider and how many are flagged for attention, read from money_out_view on a real store of each engine.
 */
import { PAYOUT_STREAM_PREFIX, REFUND_STREAM_PREFIX, moneyOutStream } from '@paygate/contracts';
import { moneyOutDecider } from '@paygate/disbursements-domain';
import { DeciderRuntime, openEventStore, type EventStore } from '@paygate/event-store';
import type { SqlDatabase } from '@paygate/sql';
import { describeOnAllSqlEngines, RecordingMetrics } from '@paygate/testing';
import { DisbursementsProjection } from './disbursements-projection';
import { at, request, T0 } from './money-out-test-setup';
import {
  MONEY_OUT_ATTENTION_METRIC,
  OLDEST_PENDING_MONEY_OUT_METRIC,
  reportPendingMoneyOut,
} from './money-out-metrics';

describeOnAllSqlEngines('money out at a scrape', 'money_out_metrics', (open) => {
  let sql: SqlDatabase;
  let close: () => Promise<void>;
  let store: EventStore;
  let projection: DisbursementsProjection;
  let metrics: RecordingMetrics;
  let now = T0;

  beforeAll(async () => {
    ({ db: sql, close } = await open());
    store = await openEventStore(sql);
    projection = await DisbursementsProjection.open(sql, store, 1_000);
    metrics = new RecordingMetrics();
    reportPendingMoneyOut(metrics, projection, () => now);
  });

  afterAll(() => close());

  const moneyOuts = () => new DeciderRuntime(store, moneyOutDecider);
  const project = async () =>
    projection.applyPage(await store.readAll({ streamPrefixes: [REFUND_STREAM_PREFIX, PAYOUT_STREAM_PREFIX] }));
  const read = async (name: string) =>
    Object.fromEntries((await metrics.read(name)).map((sample) => [sample.labels.kind, sample.value]));

  it('is 0 per kind while nothing is pending, then the oldest pending one’s age and the flagged count', async () => {
    expect(await read(OLDEST_PENDING_MONEY_OUT_METRIC)).toEqual({ refund: 0, payout: 0 });

    const refund = moneyOutStream('REFUND', 'mer_1', 'r-1');
    const payout = moneyOutStream('PAYOUT', 'mer_1', 'p-1');
    await moneyOuts().handle(refund, { type: 'Request', request: request('REFUND', 'r-1', at(0)) });
    await moneyOuts().handle(payout, { type: 'Request', request: request('PAYOUT', 'p-1', at(30)) });
    await moneyOuts().handle(payout, { type: 'Flag', at: at(60) });
    await project();
    now = T0 + 90_000;
    expect(await read(OLDEST_PENDING_MONEY_OUT_METRIC)).toEqual({ refund: 90, payout: 60 });
    expect(await read(MONEY_OUT_ATTENTION_METRIC)).toEqual({ refund: 0, payout: 1 });

    await moneyOuts().handle(refund, { type: 'RecordCompleted', providerTransactionId: 'm-1', at: at(95) });
    await moneyOuts().handle(payout, { type: 'RecordFailed', reason: 'PAYEE_NOT_FOUND', at: at(95) });
    await project();
    expect(await read(OLDEST_PENDING_MONEY_OUT_METRIC)).toEqual({ refund: 0, payout: 0 });
    expect(await read(MONEY_OUT_ATTENTION_METRIC)).toEqual({ refund: 0, payout: 0 });
  });
});
