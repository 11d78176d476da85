/**
 * The counts the cost budget specs hold a layout to: what its apps counted of their own work (SQL statements by kind,
 * inbound HTTP requests, Kafka messages; tools/local app-counters.ts), read once they stop moving.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { CHECKPOINT_FLUSH_MS } from '@paygate/messaging';
import { addCounters, countersSince, readAppCounters, statementsIn, type AppCounters } from '@paygate/tools-local';

/**
 * The fallback looks (DISPATCH_TICK_MS, TIMER_TICK_MS, PAYMENT_TIMER_TICK_MS, MONEY_OUT_TIMER_TICK_MS) and the status
 * poll for a provider callback that never came (PROVIDER_STATUS_POLL_MS) set beyond a test, so what it counts is what
 * the work itself causes, however slowly a busy machine runs it.
 */
export const NO_FALLBACK = {
  PROVIDER_STATUS_POLL_MS: '600000',
  DISPATCH_TICK_MS: '600000',
  TIMER_TICK_MS: '600000',
  PAYMENT_TIMER_TICK_MS: '600000',
  MONEY_OUT_TIMER_TICK_MS: '600000',
} as const;

/** Longer than a consumer waits to save its position: what was set off has finished, its checkpoints included. */
const SETTLED_AFTER_MS = CHECKPOINT_FLUSH_MS + 400;
const POLL_MS = 200;

/** Every app's counters added up; an app that does not answer fails the test. */
export async function countsOf(urls: readonly string[]): Promise<AppCounters> {
  const read = await Promise.all(urls.map((url) => readAppCounters(url)));
  const missing = urls.filter((_, i) => read[i] === undefined);
  if (missing.length > 0) throw new Error(`no counters from ${missing.join(', ')}`);
  return addCounters(read as AppCounters[]);
}

/** The apps' counts once their statements stop moving. */
export async function settledCounts(urls: readonly string[]): Promise<AppCounters> {
  let last = await countsOf(urls);
  let quietMs = 0;
  for (let round = 0; round < 100; round++) {
    await sleep(POLL_MS);
    const now = await countsOf(urls);
    quietMs = statementsIn(now) === statementsIn(last) ? quietMs + POLL_MS : 0;
    if (quietMs > SETTLED_AFTER_MS) return now;
    last = now;
  }
  throw new Error('statements did not stop');
}

export interface Grown {
  statements: number;
  /** The kinds of statement that ran, with how many of each. */
  byKind: Record<string, number>;
  http: number;
  kafka: { produced: number; fetched: number };
}

/** What ran between two readings. */
export function grownBetween(before: AppCounters, after: AppCounters): Grown {
  const grown = countersSince(before, after)!;
  return {
    statements: statementsIn(grown),
    byKind: Object.fromEntries([...grown.sql].filter(([, n]) => n > 0)),
    http: grown.http,
    kafka: { produced: grown.produced, fetched: grown.fetched },
  };
}

/**
 * One mobile money lifecycle's counts within its budget: statements (the kinds that ran named when over), and inbound
 * HTTP requests; and a whole payment counted, not a broken one: each kind of work it needs is there.
 */
export function expectWithinBudget(cost: Grown, budget: { statements: number; http: number }): void {
  if (cost.statements > budget.statements)
    throw new Error(
      `a lifecycle ran ${cost.statements} statements, over its budget of ${budget.statements}: ${JSON.stringify(cost.byKind)}`,
    );
  expect(Object.keys(cost.byKind)).toEqual(
    expect.arrayContaining(['append', 'log-read', 'job-queue', 'projection', 'webhooks', 'sandbox']),
  );
  expect(cost.http).toBeLessThanOrEqual(budget.http);
}
