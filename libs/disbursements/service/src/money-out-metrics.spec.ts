/**
 * What an SRE sees of money out at a scrape: per kind, the age of the oldest refund or payout still waiting for its
 * provider and how many are flagged for attention, read from money_out_view on a real (PGlite) store.
 */
import { PAYOUT_STREAM_PREFIX, REFUND_STREAM_PREFIX, moneyOutStream } from '@paygate/contracts';
import { moneyOutDecider, type MoneyOutRequest } from '@paygate/disbursements-domain';
import { DeciderRuntime, openEventStore, type EventStore } from '@paygate/event-store';
import { openSqlDatabase, type SqlDatabase } from '@paygate/sql';
import { RecordingMetrics } from '@paygate/testing';
import { DisbursementsProjection } from './disbursements-projection';
import {
  MONEY_OUT_ATTENTION_METRIC,
  OLDEST_PENDING_MONEY_OUT_METRIC,
  reportPendingMoneyOut,
} from './money-out-metrics';

const T0 = Date.parse('2026-11-28T10:00:00.000Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

const request = (kind: 'REFUND' | 'PAYOUT', reference: string, requestedAt: string): MoneyOutRequest => ({
  kind,
  merchantId: 'mer_1',
  reference,
  currency: 'UGX',
  requestedAmount: 1_000,
  amount: 1_000,
  fee: 0,
  providerCode: 'mtn_momo_ug',
  internalReference: kind === 'REFUND' ? 'PG0000000000000000000000AB' : null,
  merchantReference: kind === 'REFUND' ? 'order-1' : null,
  msisdn: '256772000001',
  recipientName: null,
  reason: null,
  livemode: false,
  requestedAt,
});

describe('money out at a scrape', () => {
  let sql: SqlDatabase;
  let store: EventStore;
  let projection: DisbursementsProjection;
  let metrics: RecordingMetrics;
  let now = T0;

  beforeAll(async () => {
    sql = await openSqlDatabase('pglite://memory');
    store = await openEventStore(sql);
    projection = await DisbursementsProjection.open(sql, store, 1_000);
    metrics = new RecordingMetrics();
    reportPendingMoneyOut(metrics, projection, () => now);
  });

  afterAll(async () => {
    await sql.close();
  });

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
