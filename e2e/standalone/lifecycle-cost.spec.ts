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
import { mobileMoneyRequest } from '@paygate/testing';
import { countsOf, expectWithinBudget, grownBetween, NO_FALLBACK, settledCounts } from '../edge/cost-counts';
import { startObservedPaygate, type ObservedPaygate } from '../edge/observability-test-setup';

/** Statements one mobile money lifecycle runs, alone, from initialize to its callback recorded (docs/architecture.md). */
const LIFECYCLE_BUDGET = 64;
/** Inbound HTTP requests of that lifecycle, the sandbox provider's included (issue #37: at most 4). */
const HTTP_BUDGET = 4;

describe('what a payment costs the embedded layout, in SQL statements', () => {
  let observed: ObservedPaygate;

  const settled = () => settledCounts([observed.paygate.url]);

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

  it(`a mobile money lifecycle, initialize to its callback recorded, runs at most ${LIFECYCLE_BUDGET} statements and ${HTTP_BUDGET} HTTP requests`, async () => {
    const before = await settled();
    await lifecycle();
    const cost = grownBetween(before, await settled());
    expectWithinBudget(cost, { statements: LIFECYCLE_BUDGET, http: HTTP_BUDGET });
  });

  it('an idle Paygate runs no SQL statement in 5 s', async () => {
    const before = await settled();
    await sleep(5_000);
    expect(grownBetween(before, await countsOf([observed.paygate.url])).byKind).toEqual({});
  });
});
