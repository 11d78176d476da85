/**
 * The cost budget of the embedded layout, in SQL statements counted where they are issued
 * (`paygate_sql_statements_total{kind}`, read through GET /metrics?name=…, which reads no gauge): a change that adds a round trip to a
 * payment, or makes an idle Paygate look for work it was not told about, fails here. Counts, not
 * timings: how long the statements take is bench:e2e's business (docs/benchmarks.md).
 *
 * The fallback looks (DISPATCH_TICK_MS, TIMER_TICK_MS, PAYMENT_TIMER_TICK_MS, MONEY_OUT_TIMER_TICK_MS) are set beyond the
 * test, so what it counts is what the work itself causes; a subscription's fallback read comes
 * 30 s after its last read, and every window here starts right after one.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { CHECKPOINT_FLUSH_MS } from '@paygate/messaging';
import { mobileMoneyRequest } from '@paygate/testing';
import { parseExposition, startObservedPaygate, type ObservedPaygate } from '../edge/observability-test-setup';

/** Statements one mobile money lifecycle runs, alone, from initialize to its callback recorded (docs/architecture.md). */
const LIFECYCLE_BUDGET = 64;
const SETTLED_AFTER_MS = CHECKPOINT_FLUSH_MS + 400;
const NO_FALLBACK = {
  DISPATCH_TICK_MS: '600000',
  TIMER_TICK_MS: '600000',
  PAYMENT_TIMER_TICK_MS: '600000',
  MONEY_OUT_TIMER_TICK_MS: '600000',
};

/** Statements by kind, as GET /metrics counts them. */
async function statements(url: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${url}/metrics?name=paygate_sql_statements_total`)).text();
  const byKind = new Map<string, number>();
  for (const [series, value] of parseExposition(text)) {
    const kind = /^paygate_sql_statements_total\{kind="([^"]+)"\}$/.exec(series)?.[1];
    if (kind) byKind.set(kind, value);
  }
  return byKind;
}
const total = (byKind: Map<string, number>) => [...byKind.values()].reduce((sum, n) => sum + n, 0);
/** What ran between two counts, by kind. */
const since = (before: Map<string, number>, after: Map<string, number>): Record<string, number> =>
  Object.fromEntries(
    [...after].flatMap(([kind, n]) => (n > (before.get(kind) ?? 0) ? [[kind, n - (before.get(kind) ?? 0)]] : [])),
  );

describe('what a payment costs the embedded layout, in SQL statements', () => {
  let observed: ObservedPaygate;

  /**
   * The counts once they stop moving for longer than a consumer waits to save its position: what was set off has
   * finished, its checkpoints included.
   */
  const settled = async (): Promise<Map<string, number>> => {
    let last = await statements(observed.paygate.url);
    let quietMs = 0;
    for (let round = 0; round < 100; round++) {
      await sleep(200);
      const now = await statements(observed.paygate.url);
      quietMs = total(now) === total(last) ? quietMs + 200 : 0;
      if (quietMs > SETTLED_AFTER_MS) return now;
      last = now;
    }
    throw new Error('statements did not stop');
  };

  const lifecycle = async () => {
    const init = await observed.client.initialize(mobileMoneyRequest({ require_confirmation: false }));
    expect(init.status).toBe(202);
    const ref = String(init.body.data.internal_reference);
    await observed.receiver.waitFor(ref, 'transaction.completed');
  };

  beforeAll(async () => {
    observed = await startObservedPaygate(NO_FALLBACK);
    // Warm: the first payment reads the merchant and fills what a later one finds cached.
    await lifecycle();
  });
  afterAll(() => observed?.close());

  it(`a mobile money lifecycle, initialize to its callback recorded, runs at most ${LIFECYCLE_BUDGET} statements`, async () => {
    const before = await settled();
    await lifecycle();
    const after = await settled();
    const cost = total(after) - total(before);
    const byKind = since(before, after);
    if (cost > LIFECYCLE_BUDGET)
      throw new Error(
        `a lifecycle ran ${cost} statements, over its budget of ${LIFECYCLE_BUDGET}: ${JSON.stringify(byKind)}`,
      );
    // A whole payment was counted, not a broken one: each kind of work it needs is there.
    expect(Object.keys(byKind)).toEqual(
      expect.arrayContaining(['append', 'log-read', 'job-queue', 'projection', 'webhooks', 'sandbox']),
    );
  });

  it('an idle Paygate runs no SQL statement in 5 s', async () => {
    const before = await settled();
    await sleep(5_000);
    expect(since(before, await statements(observed.paygate.url))).toEqual({});
  });
});
