/**
 * Money-out benchmark: refunds and payouts per second through the API, each to its final callback.
 * A refund is `POST /v1/refunds` of UGX 1,000 of a COMPLETED mobile money collection paid from
 * 256772000001 → the provider → COMPLETED → `refund.completed`; a payout is `POST /v1/payouts` of
 * UGX 1,000 to 256772000001 (its name check, then the provider) → COMPLETED → `payout.completed`.
 * Both callbacks go to a node:http receiver this bench starts on 127.0.0.1, which verifies them as
 * docs/webhooks.md says; latency runs from the request to the callback's arrival.
 *
 * Per layout, on one merchant whose wallet an operator top-up funds: BENCH_IN_FLIGHT collections
 * completed first (one per payer, each then refunded a little at a time by its payer alone, so
 * refunds of one collection never race); then refunds, BENCH_ALONE of them one at a time after
 * five unmetered (what one costs with nothing to wait for or conflict with) and then in a closed
 * loop as bench:e2e runs lifecycles (closed-loop.ts), for BENCH_SECONDS after BENCH_WARMUP_SECONDS;
 * then payouts the same way. Refunds go first: a completed payout is asked about at every status
 * poll for PAYOUT_REVERSAL_WATCH_MS (10 min), which would run inside a later window. That watch is
 * measured last, in BENCH_WATCH_SECONDS with no requests once the payouts still being tried after
 * their requests timed out are done: what each of its status polls costs.
 *
 *   npm run bench:money-out                  standalone (PGlite, in-process broker)
 *   STORE_URL=postgres://… BROKER_URL=kafka://… npm run bench:money-out
 *                                            also distributed: two gateways, collections, dispatcher,
 *                                            service-payments, sandbox
 *   BENCH_MODES, BENCH_SECONDS, BENCH_WARMUP_SECONDS, BENCH_IN_FLIGHT, BENCH_DRAIN_SECONDS,
 *   BENCH_SANDBOX_LATENCY_MS, BENCH_CEILINGS, BENCH_CONNECTIONS, BENCH_CPU_PROF, BENCH_RATE_LIMITS
 *                                            as in bench:e2e
 *   BENCH_ALONE=20                           refunds and payouts one at a time, metered, before each load
 *   BENCH_WATCH_SECONDS=40                   the window after the payouts measuring their reversal watch; 0 skips it
 *
 * The ceiling is bench:e2e's: the bare engine of the layout doing one INSERT per request (load.ts). Exits 0 whatever
 * the figures (aims are reported, not asserted); 1 when setup fails.
 */
import { cpus, loadavg } from 'node:os';
import {
  ADMIN_TOKEN,
  createMerchant,
  DISTRIBUTED_SKIPPED,
  distributedTarget,
  kafkaPort,
  launchDistributed,
  launchStandalone,
  runId,
  stopAll,
  type Layout,
} from './apps';
import { attempt, closedLoop, type Attempt, type LoadResult } from './closed-loop';
import {
  appTotal,
  costTable,
  CostMeter,
  fig,
  itemsTable,
  paygateCpuMs,
  type Externals,
  type Window,
} from './cost-table';
import { met, ms, percentile } from './figures';
import {
  CEILINGS,
  DRAIN_MS,
  IN_FLIGHT,
  MODES,
  pgliteCeiling,
  postgresCeiling,
  SANDBOX_LATENCY_MS,
  SECONDS,
  WARMUP_SECONDS,
  type Row,
} from './load';
import { statementsIn } from '../local/app-counters';
import { Receiver } from './receiver';

const WATCH_SECONDS = Number(process.env.BENCH_WATCH_SECONDS ?? 40);
/** After the last of some items one at a time, before the window closes: their bookkeeping (callbacks recorded). */
const SETTLE_MS = 1_000;
/** After the payouts' drain, probes this long until the backlog is done (below), at most BACKLOG_LIMIT_MS. */
const PROBE_MS = 5_000;
const BACKLOG_LIMIT_MS = 120_000;
/** Refunds and payouts run one at a time before the load, metered. */
const ALONE = Number(process.env.BENCH_ALONE ?? 20);
const ALONE_WARMUP = 5;
/** The throughput aims, per layout, for each kind: a third of a full lifecycle's (money goes out less often than in). */
const AIMS = { perSecond: 50, p99Ms: 1_000 };
/** Counts per item over Paygate's apps: a lifecycle's (bench:e2e, issue #37), as a refund or payout is as much work. */
const COST_AIMS = { statements: 12, httpRequests: 4 };
/** Every app: callbacks go to this bench's receiver on 127.0.0.1, and the sandbox answers after SANDBOX_LATENCY_MS. */
const APP_ENV = { ALLOW_PRIVATE_CALLBACKS: 'true', SANDBOX_LATENCY_MS };
/** What the wallet is topped up with (UGX), far above what the run pays out. */
const TOP_UP = 1_000_000_000;
/** Each payer's collection (UGX) and each refund and payout (UGX; a payout's fee is UGX 500 more). */
const COLLECTED = 1_000_000;
const MONEY_OUT = 1_000;
/** Ending 0001: the sandbox completes the collection, the refund and the payout, and calls back for each. */
const MSISDN = '256772000001';

const KINDS = ['refund', 'payout'] as const;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
type Kind = (typeof KINDS)[number];

let sequence = 0;
const nextReference = (prefix: string) => `${prefix}-${runId}-${(sequence++).toString(36)}`;

interface Merchant {
  publicKey: string;
  secretKey: string;
}

const keys = (merchant: Merchant) => ({ 'public-key': merchant.publicKey, 'secret-key': merchant.secretKey });

/**
 * A COMPLETED collection of COLLECTED from MSISDN: its internal reference, and whether its callback arrived. The
 * callback says COMPLETED; without it the record must, within DRAIN_MS (a collection completed without its callback is
 * still refundable, and the run says so). The record is read for its reference only: in the distributed layout the read
 * model can still say PENDING when the callback arrives.
 */
async function completedCollection(
  gateway: string,
  merchant: Merchant,
  receiver: Receiver,
): Promise<{ internalReference: string; calledBack: boolean }> {
  const reference = nextReference('col');
  const body = JSON.stringify({
    merchant_reference: reference,
    transaction_method: 'MOBILE_MONEY',
    provider_code: 'mtn_momo_ug',
    currency: 'UGX',
    amount: COLLECTED,
    msisdn: MSISDN,
    customer_name: 'Jane Doe',
    require_confirmation: false,
  });
  const url = `${gateway}/v1/collections/initialize`;
  const done = await attempt(receiver, 'transaction.completed', reference, url, keys(merchant), body);
  const calledBack = done.outcome !== undefined && 'at' in done.outcome;
  const deadline = performance.now() + DRAIN_MS;
  for (;;) {
    const found = await fetch(`${gateway}/v1/collections?merchant_reference=${reference}`, { headers: keys(merchant) });
    const record = (await found.json()) as { data?: { internal_reference?: string; transaction_status?: string } };
    const { internal_reference: internalReference, transaction_status: status } = record.data ?? {};
    if (internalReference && (calledBack || status === 'COMPLETED')) return { internalReference, calledBack };
    if (performance.now() > deadline)
      throw new Error(
        `a collection to refund did not complete: initialize ${done.status}, then ${found.status} ${status}`,
      );
    await pause(200);
  }
}

const refund = (gateway: string, merchant: Merchant, receiver: Receiver, internalReference: string) => {
  const reference = nextReference('rf');
  const body = JSON.stringify({
    internal_reference: internalReference,
    refund_reference: reference,
    amount: MONEY_OUT,
  });
  return attempt(receiver, 'refund.completed', reference, `${gateway}/v1/refunds`, keys(merchant), body);
};

const payout = (gateway: string, merchant: Merchant, receiver: Receiver) => {
  const reference = nextReference('po');
  const body = JSON.stringify({
    payout_reference: reference,
    currency: 'UGX',
    amount: MONEY_OUT,
    provider_code: 'mtn_momo_ug',
    msisdn: MSISDN,
  });
  return attempt(receiver, 'payout.completed', reference, `${gateway}/v1/payouts`, keys(merchant), body);
};

/** The ceiling's request body: a payout's size. */
const ceilingBody = () =>
  JSON.stringify({
    payout_reference: nextReference('ceiling'),
    currency: 'UGX',
    amount: MONEY_OUT,
    provider_code: 'mtn_momo_ug',
    msisdn: MSISDN,
  });

async function topUp(gateway: string, merchantId: string): Promise<void> {
  const response = await fetch(`${gateway}/admin/v1/wallets/top-up`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
    body: JSON.stringify({ merchant_id: merchantId, currency: 'UGX', amount: TOP_UP }),
  });
  if (response.status >= 300) throw new Error(`top-up refused: ${response.status} ${await response.text()}`);
}

/** `count` calls of `run` at most `width` at a time, in order of their index. */
async function inBatches<T>(count: number, width: number, run: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (let first = 0; first < count; first += width)
    results.push(
      ...(await Promise.all(Array.from({ length: Math.min(width, count - first) }, (_, i) => run(first + i)))),
    );
  return results;
}

interface OneAtATime {
  /** Request to callback, each. */
  latencies: number[];
  /** What the processes spent over them. */
  cost: { window: Window; items: number };
}

interface Measured {
  mode: 'standalone' | 'distributed';
  target: string;
  ceiling?: Row;
  /** How the collections to refund went. */
  setup: string;
  alone: Record<Kind, OneAtATime>;
  loads: Record<Kind, LoadResult>;
  /**
   * The payouts' reversal watch: a window with no requests, the status polls in it (the sandbox's HTTP in), and how
   * long after the drain it began.
   */
  watch?: { window: Window; polls: number; waitedSeconds: number };
}

/**
 * ALONE items one after another over the layout's gateways, metered after ALONE_WARMUP unmetered ones (the first of a
 * kind in a process run cold code): what one costs with nothing to wait for or conflict with. The window closes
 * SETTLE_MS after the last callback, so its trailing bookkeeping is counted; a setup that fails them fails loudly.
 */
async function oneAtATime(
  kind: Kind,
  layout: Layout,
  meter: CostMeter,
  item: (gateway: string, payer: number) => Promise<Attempt>,
): Promise<OneAtATime> {
  // Each as a payer of its own (a refund of another collection), on the gateways in turn.
  const one = async (i: number) => {
    const check = await item(layout.gateways[i % layout.gateways.length].url, i % IN_FLIGHT);
    if (!check.outcome || !('at' in check.outcome))
      throw new Error(
        `a ${kind} alone failed: ${check.status}, ${check.outcome && 'failure' in check.outcome ? check.outcome.failure : 'no callback awaited'}`,
      );
    return check.outcome.at - check.startedAt;
  };
  for (let i = 0; i < ALONE_WARMUP; i++) await one(i);
  await pause(SETTLE_MS);
  const before = await meter.snapshot();
  const latencies: number[] = [];
  for (let i = 0; i < ALONE; i++) latencies.push(await one(i));
  await pause(SETTLE_MS);
  return { latencies, cost: { window: meter.between(before, await meter.snapshot()), items: ALONE } };
}

/**
 * Waits until the apps append less than one event per four status polls over PROBE_MS: a payout whose request the
 * gateway answered 503 after COMMAND_TIMEOUT_MS is still being tried behind it, and a watch window over that backlog
 * would not be the watch's. Returns the seconds waited (BACKLOG_LIMIT_MS at most).
 */
async function backlogDone(meter: CostMeter): Promise<number> {
  const start = performance.now();
  let previous = await meter.snapshot();
  while (performance.now() - start < BACKLOG_LIMIT_MS) {
    await pause(PROBE_MS);
    const next = await meter.snapshot();
    const { sql, http } = appTotal(meter.between(previous, next));
    previous = next;
    if ((sql.get('append') ?? 0) * 4 <= http) break;
  }
  return (performance.now() - start) / 1_000;
}

/**
 * A layout's refunds, then its payouts, each one at a time and then in the closed loop, then the payouts' reversal
 * watch, on one merchant whose callbacks go to a fresh receiver.
 */
async function run(
  mode: Measured['mode'],
  launch: () => Promise<Layout>,
  externals: Externals,
  ceiling?: Row,
): Promise<Measured> {
  const receiver = await Receiver.start(DRAIN_MS);
  try {
    const layout = await launch();
    try {
      const gateway = layout.gateways[0].url;
      const merchant = await createMerchant(gateway, receiver.url);
      receiver.signingKey = merchant.signingKey;
      await topUp(gateway, merchant.id);
      // One collection per payer, on every gateway, 50 at a time; a broken setup fails loudly.
      const completed = await inBatches(IN_FLIGHT, 50, (payer) =>
        completedCollection(layout.gateways[payer % layout.gateways.length].url, merchant, receiver),
      );
      const collections = completed.map((collection) => collection.internalReference);
      const uncalled = completed.filter((collection) => !collection.calledBack).length;
      const setup = `${IN_FLIGHT} collections completed to refund${uncalled > 0 ? `, ${uncalled} of them without their transaction.completed within ${DRAIN_MS / 1_000} s` : ''}`;
      const items: Record<Kind, (gateway: string, payer: number) => Promise<Attempt>> = {
        refund: (at, payer) => refund(at, merchant, receiver, collections[payer]),
        payout: (at) => payout(at, merchant, receiver),
      };
      const meter = new CostMeter(layout.procs, externals);
      const alone = {} as Measured['alone'];
      const loads = {} as Measured['loads'];
      for (const kind of KINDS) {
        alone[kind] = await oneAtATime(kind, layout, meter, items[kind]);
        loads[kind] = await closedLoop({
          procs: layout.procs,
          gateways: layout.gateways,
          inFlight: IN_FLIGHT,
          meter,
          receiver,
          item: items[kind],
          words: {
            items: `${kind}s`,
            request: `${kind} request`,
            accepted: 'accepted',
            finalEvent: `${kind}.completed`,
          },
        });
      }
      let watch: Measured['watch'];
      if (WATCH_SECONDS > 0) {
        const waited = await backlogDone(meter);
        const before = await meter.snapshot();
        await pause(WATCH_SECONDS * 1_000);
        const window = meter.between(before, await meter.snapshot());
        // With no requests, the only inbound HTTP is the status polls at the sandbox (in standalone, the one app).
        const polls = window.uses.reduce((n, use) => n + (use.role === 'app' ? (use.counters?.http ?? 0) : 0), 0);
        watch = { window, polls, waitedSeconds: waited };
      }
      return { mode, target: layout.name, ceiling, setup, alone, loads, watch };
    } finally {
      await layout.stop();
    }
  } finally {
    await receiver.close();
  }
}

const startLoad = loadavg()[0];

function print(measured: Measured[]): void {
  console.log(
    `\nRefunds and payouts (request → provider → COMPLETED → refund.completed / payout.completed verified at the receiver), ` +
      `${IN_FLIGHT} in flight, ${SECONDS} s after ${WARMUP_SECONDS} s warm-up each, sandbox latency ${SANDBOX_LATENCY_MS} ms, drain ${DRAIN_MS / 1_000} s`,
  );
  console.log(`${cpus().length} cores, load average at start ${startLoad.toFixed(2)}\n`);
  console.log('| target | items/s | p50 ms | p99 ms | request p99 ms | lost | errors | share of its write ceiling |');
  console.log('|---|---|---|---|---|---|---|---|');
  const share = (perSecond: number, ceiling?: Row) => (ceiling ? (100 * perSecond) / ceiling.requestsPerSecond : NaN);
  for (const { target, ceiling, loads } of measured) {
    if (ceiling)
      console.log(
        `| ${ceiling.target} (req/s) | ${Math.round(ceiling.requestsPerSecond)} | ${ms(ceiling.p50Ms)} | ${ms(ceiling.p99Ms)} | - | - | ${ceiling.errors} | - |`,
      );
    for (const kind of KINDS) {
      const result = loads[kind];
      const ofText = ceiling
        ? `${ms(share(result.perSecond, ceiling))}% of ${Math.round(ceiling.requestsPerSecond)} req/s`
        : 'not measured (BENCH_CEILINGS=0)';
      console.log(
        `| ${target}: ${kind}s | ${Math.round(result.perSecond)} | ${ms(result.p50Ms)} | ${ms(result.p99Ms)} | ${ms(result.requestP99Ms)} | ${result.lost} | ${result.errors} | ${ofText} |`,
      );
    }
  }
  for (const { target, ceiling, setup, alone, loads } of measured) {
    console.log(`\n${target}:`);
    console.log(`- ${setup}`);
    for (const kind of KINDS) {
      const sorted = Float64Array.from(alone[kind].latencies).sort();
      console.log(
        `- ${kind}s one at a time, before the load: ${ALONE}, request to callback p50 ${ms(percentile(sorted, 50))} ms, slowest ${ms(sorted[sorted.length - 1])} ms`,
      );
      for (const note of loads[kind].notes) console.log(`- ${kind}s: ${note}`);
      console.log(`- ${kind}s: CPU over the window (% of one core): ${loads[kind].cpu}`);
    }
    if (ceiling) console.log(`- CPU of its ceiling: ${ceiling.cpu}`);
  }
  for (const { target, alone, loads, watch } of measured) {
    for (const kind of KINDS) {
      const { window, items } = loads[kind].cost;
      console.log(
        `\n${target}: cost per ${kind}, over the ${SECONDS} s window, ${items} completed in it ` +
          '(CPU ms; SQL statements by kind; inbound HTTP requests, scrapes of /metrics left out; Kafka messages)\n',
      );
      for (const line of costTable(window, items)) console.log(line);
      console.log(`\n${target}: cost per ${kind}, ${ALONE} one at a time\n`);
      for (const line of costTable(alone[kind].cost.window, alone[kind].cost.items)) console.log(line);
    }
    if (watch) {
      console.log(
        `\n${target}: the payouts' reversal watch, ${Math.round(watch.window.seconds)} s with no requests from ` +
          `${Math.round(watch.waitedSeconds)} s after the drain: cost per status poll, ${watch.polls} polls\n`,
      );
      for (const line of costTable(watch.window, watch.polls)) console.log(line);
    }
    console.log(`\n${target}: per item, Paygate's processes\n`);
    const rows: Parameters<typeof itemsTable>[0] = KINDS.flatMap((kind) => [
      { item: `${kind}, ${IN_FLIGHT} in flight`, ...loads[kind].cost },
      { item: `${kind}, one at a time`, ...alone[kind].cost },
    ]);
    if (watch)
      rows.push({ item: 'payout: one status poll of its reversal watch', window: watch.window, items: watch.polls });
    for (const line of itemsTable(rows)) console.log(line);
  }

  console.log('');
  for (const mode of ['standalone', 'distributed'] as const) {
    const found = measured.find((m) => m.mode === mode);
    for (const kind of KINDS) {
      const text = `Aim: ${kind}s >= ${AIMS.perSecond}/s ${mode}`;
      const tail = `p99 request-to-callback < ${AIMS.p99Ms / 1_000} s, zero lost callbacks, zero errors`;
      if (!found) {
        console.log(`${text}, ${tail}: not measured`);
        continue;
      }
      const { ceiling } = found;
      const result = found.loads[kind];
      const aimShare = ceiling
        ? ` (${fig(share(AIMS.perSecond, ceiling))}% of its write ceiling, ${Math.round(ceiling.requestsPerSecond)} req/s)`
        : '';
      const figureShare = ceiling ? ` (${fig(share(result.perSecond, ceiling))}%)` : '';
      const ok =
        result.perSecond >= AIMS.perSecond && result.p99Ms < AIMS.p99Ms && result.lost === 0 && result.errors === 0;
      console.log(
        `${text}${aimShare}, ${tail}: ${Math.round(result.perSecond)}/s${figureShare}, p99 ${ms(result.p99Ms)} ms, ${result.lost} lost, ${result.errors} errors ${met(ok)}`,
      );
    }
  }
  for (const mode of ['standalone', 'distributed'] as const) {
    const found = measured.find((m) => m.mode === mode);
    for (const kind of KINDS) {
      const text = `Aim: ${mode} <= ${COST_AIMS.statements} SQL statements and <= ${COST_AIMS.httpRequests} HTTP requests in per ${kind} (Paygate's apps; CPU is the run's reading)`;
      const result = found?.loads[kind];
      if (!result || result.cost.items === 0) {
        console.log(`${text}: ${result ? `no ${kind} completed` : 'not measured'}`);
        continue;
      }
      const { window, items } = result.cost;
      const total = appTotal(window);
      const statements = statementsIn(total) / items;
      const httpRequests = total.http / items;
      const ok = statements <= COST_AIMS.statements && httpRequests <= COST_AIMS.httpRequests;
      console.log(
        `${text}: ${fig(statements)} statements, ${fig(httpRequests)} requests (${fig(paygateCpuMs(window, items).ms)} ms of CPU) ${met(ok)}`,
      );
    }
  }
}

async function main() {
  const target = distributedTarget();
  const measured: Measured[] = [];
  if (MODES.includes('standalone')) {
    const ceiling = CEILINGS ? await pgliteCeiling(ceilingBody) : undefined;
    measured.push(await run('standalone', () => launchStandalone(APP_ENV), {}, ceiling));
  }
  if (MODES.includes('distributed') && !target) console.log(DISTRIBUTED_SKIPPED);
  if (MODES.includes('distributed') && target) {
    const ceiling = CEILINGS ? await postgresCeiling(target.storeUrl, ceilingBody) : undefined;
    const externals = {
      postgresPort: Number(new URL(target.storeUrl).port || 5432),
      kafkaPort: kafkaPort(target.brokerUrl),
    };
    const launch = () => launchDistributed(target, APP_ENV, { servicePayments: true });
    measured.push(await run('distributed', launch, externals, ceiling));
  }
  print(measured);
}

main().catch(async (error) => {
  console.error(error);
  await stopAll();
  process.exit(1);
});
