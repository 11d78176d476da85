/**
 * End-to-end benchmark: full collection lifecycles per second. Each lifecycle is an initialize
 * with require_confirmation=false (MOBILE_MONEY, a test number the sandbox provider completes and
 * calls back for) → the provider → COMPLETED → the `transaction.completed` callback, received by
 * a node:http receiver this bench starts on 127.0.0.1 and verified (Standard Webhooks signature
 * and the hmac-signature header, as docs/webhooks.md tells merchants to). Latency is from sending
 * the initialize to the callback's arrival.
 *
 * Closed loop: BENCH_IN_FLIGHT payers each run one lifecycle after another (the next initialize
 * when the last callback has arrived), so the rate is what the layout sustains with that many
 * payments under way. Every initialized collection's callback must arrive within
 * BENCH_DRAIN_SECONDS of its initialize, else it is counted lost; when the measured window ends
 * no payer starts another lifecycle and the ones under way get that long to finish.
 *
 *   npm run bench:e2e                        standalone (PGlite, in-process broker)
 *   STORE_URL=postgres://… BROKER_URL=kafka://… npm run bench:e2e
 *                                            also distributed: two gateways, collections, dispatcher, sandbox
 *   BENCH_MODES=standalone,distributed       which layouts; default both (distributed needs the URLs)
 *   BENCH_SECONDS=20 BENCH_WARMUP_SECONDS=3  measured window after an unmeasured one; defaults 20 and 3
 *   BENCH_IN_FLIGHT=200                      concurrent lifecycles (payers)
 *   BENCH_DRAIN_SECONDS=30                   a callback later than this after its initialize is lost
 *   BENCH_SANDBOX_LATENCY_MS=0               the sandbox provider's answer time (SANDBOX_LATENCY_MS);
 *                                            0 so the latency is Paygate's own
 *   BENCH_CEILINGS=0                         skip the write ceilings (their share is then not printed)
 *   BENCH_IDLE_SECONDS=30                    each of the two idle windows after the drain; 0 skips them
 *   BENCH_TRACING=1                          every app traces, exporting OTLP/HTTP (protobuf) to a sink this bench
 *                                            starts on 127.0.0.1 (otlp-sink.ts); compare with a run without it
 *   BENCH_CONNECTIONS, BENCH_CPU_PROF, BENCH_RATE_LIMITS as in bench:api
 *
 * Beside the rates and latencies, per layout (tools/bench/cost-table.ts): a "cost per lifecycle"
 * table over the measured window, divided by the lifecycles completed in it, with a row per
 * process (each app; in the distributed layout also PostgreSQL, all its processes, and the Kafka
 * broker on BROKER_URL's port), Paygate's total, and the bench itself: CPU ms from /proc, SQL
 * statements by kind (paygate_sql_statements_total), inbound HTTP requests
 * (paygate_http_request_duration_seconds_count, the bench's scrapes of /metrics left out) and Kafka
 * messages produced and fetched (paygate_kafka_messages_total), the counters read with
 * GET /metrics?name=…. Then, after the drain, two "idle" tables, each process's CPU in % of a core
 * and the SQL statements it issued over BENCH_IDLE_SECONDS with no traffic: the window right after
 * the load, where V8's optimising compiler and garbage collector are still finishing the load's
 * work, and the next one, settled, which the idle aim is judged on. The cost aims are on Paygate's
 * processes, not the bench's.
 *
 * Exits 0 whatever the figures (aims are reported, not asserted); 1 when setup fails.
 */
import { cpus, loadavg } from 'node:os';
import {
  createMerchant,
  DISTRIBUTED_SKIPPED,
  distributedTarget,
  kafkaPort,
  launchDistributed,
  launchStandalone,
  mobileMoneyInitialize,
  runId,
  stopAll,
  type Layout,
} from './apps';
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
import { met, ms } from './figures';
import {
  appCores,
  appTotal,
  costTable,
  CostMeter,
  fig,
  idleTable,
  paygateCpuMs,
  type Externals,
  type Window,
} from './cost-table';
import { attempt, closedLoop, type Attempt, type LoadResult, type Words } from './closed-loop';
import { statementsIn } from '../local/app-counters';
import { Receiver } from './receiver';
import { startOtlpSink } from './otlp-sink';

const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 30);
const TRACING = process.env.BENCH_TRACING === '1';
/** After the drain, before the idle window: a callback's last bookkeeping (its delivery recorded) settles. */
const IDLE_SETTLE_MS = 2_000;
/** Lifecycles run one at a time before the load. */
const ALONE = 5;
/** Issue #37's targets, the same in both layouts: a share of the write ceiling measured in the same run, and counts. */
const AIMS = { ceilingPercent: 5, p99Ms: 1_000 };
/** Per lifecycle over Paygate's apps, at rest as at saturation; and an idle app's share of a core. */
const COST_AIMS = { statements: 12, httpRequests: 4, idleCorePercent: 1 };
/** Every app: callbacks go to this bench's receiver on 127.0.0.1, and the sandbox answers after SANDBOX_LATENCY_MS. */
const APP_ENV = { ALLOW_PRIVATE_CALLBACKS: 'true', SANDBOX_LATENCY_MS };

let sequence = 0;
const nextReference = () => `e2e-${runId}-${(sequence++).toString(36)}`;
/** Ending 0001: the sandbox's MoMo approves and calls back (libs/sandbox/providers momo-simulator.ts). */
const lifecycleBody = (merchantReference = nextReference()) => mobileMoneyInitialize(merchantReference, false);

/** One lifecycle: initialize at `gateway`, then wait for its callback. */
function lifecycle(gateway: string, publicKey: string, receiver: Receiver): Promise<Attempt> {
  const reference = nextReference();
  const url = `${gateway}/v1/collections/initialize`;
  return attempt(
    receiver,
    'transaction.completed',
    reference,
    url,
    { 'public-key': publicKey },
    lifecycleBody(reference),
  );
}

const WORDS: Words = {
  items: 'lifecycles',
  request: 'initialize',
  accepted: 'initialized',
  finalEvent: 'transaction.completed',
};

interface Result extends LoadResult {
  target: string;
  /** The first idle window after the drain, and the settled one after it (BENCH_IDLE_SECONDS; none when 0). */
  afterLoad?: Window;
  idle?: Window;
}

/**
 * A layout measured with a merchant whose callbacks go to a fresh receiver, after one lifecycle per gateway checks the
 * setup.
 */
async function run(launch: () => Promise<Layout>, externals: Externals = {}): Promise<Result> {
  const receiver = await Receiver.start(DRAIN_MS);
  try {
    const layout = await launch();
    try {
      const merchant = await createMerchant(layout.gateways[0].url, receiver.url);
      receiver.signingKey = merchant.signingKey;
      // One lifecycle at a time first, on every gateway: a broken setup fails loudly, and the latency without load says
      // what queueing adds.
      const alone: number[] = [];
      for (let i = 0; i < ALONE; i++) {
        const gateway = layout.gateways[i % layout.gateways.length].url;
        const check = await lifecycle(gateway, merchant.publicKey, receiver);
        if (!check.outcome || !('at' in check.outcome))
          throw new Error(
            `a lifecycle alone at ${gateway} failed: initialize ${check.status}, ${check.outcome && 'failure' in check.outcome ? check.outcome.failure : 'no callback awaited'}`,
          );
        alone.push(check.outcome.at - check.startedAt);
      }
      const meter = new CostMeter(layout.procs, externals);
      const result: Result = {
        target: layout.name,
        ...(await closedLoop({
          procs: layout.procs,
          gateways: layout.gateways,
          inFlight: IN_FLIGHT,
          meter,
          receiver,
          item: (gateway) => lifecycle(gateway, merchant.publicKey, receiver),
          words: WORDS,
        })),
      };
      if (IDLE_SECONDS > 0) {
        await new Promise((resolve) => setTimeout(resolve, IDLE_SETTLE_MS));
        const drained = await meter.snapshot();
        await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1_000));
        const settled = await meter.snapshot();
        result.afterLoad = meter.between(drained, settled);
        await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1_000));
        result.idle = meter.between(settled, await meter.snapshot());
      }
      result.notes.unshift(
        `one lifecycle at a time, before the load: ${alone.map(ms).join(', ')} ms (${ALONE} in a row)`,
      );
      return result;
    } finally {
      await layout.stop();
    }
  } finally {
    await receiver.close();
  }
}

const startLoad = loadavg()[0];

/** The cost per lifecycle and idle tables of each layout measured. */
function printCosts(result: Result): void {
  const { window, items: lifecycles } = result.cost;
  console.log(
    `\n${result.target}: cost per lifecycle, over the ${SECONDS} s window, ${lifecycles} lifecycles completed in it ` +
      '(CPU ms; SQL statements by kind; inbound HTTP requests, scrapes of /metrics left out; Kafka messages)\n',
  );
  for (const line of costTable(window, lifecycles)) console.log(line);
  if (!result.afterLoad || !result.idle) return;
  const seconds = Math.round(result.idle.seconds);
  console.log(
    `\n${result.target}: right after the load, ${seconds} s with no traffic from ${IDLE_SETTLE_MS / 1_000} s after the drain\n`,
  );
  for (const line of idleTable(result.afterLoad)) console.log(line);
  console.log(`\n${result.target}: idle, settled, the next ${seconds} s\n`);
  for (const line of idleTable(result.idle)) console.log(line);
}

async function main() {
  const sink = TRACING ? await startOtlpSink() : undefined;
  console.log(`Tracing: ${sink ? `on, every app exporting to ${sink.url}` : 'off (BENCH_TRACING=1 turns it on)'}`);
  try {
    await measureLayouts(sink ? { ...APP_ENV, OTEL_EXPORTER_OTLP_ENDPOINT: sink.url } : APP_ENV);
  } finally {
    if (sink) console.log(`Tracing: ${sink.received().exports} exports, ${sink.received().bytes} bytes received`);
    await sink?.close();
  }
}

async function measureLayouts(appEnv: Record<string, string>) {
  const target = distributedTarget();
  const measured: Array<{ mode: 'standalone' | 'distributed'; result: Result; ceiling?: Row }> = [];
  if (MODES.includes('standalone')) {
    const ceiling = CEILINGS ? await pgliteCeiling(() => lifecycleBody()) : undefined;
    measured.push({ mode: 'standalone', result: await run(() => launchStandalone(appEnv)), ceiling });
  }
  if (MODES.includes('distributed') && !target) console.log(DISTRIBUTED_SKIPPED);
  if (MODES.includes('distributed') && target) {
    const ceiling = CEILINGS ? await postgresCeiling(target.storeUrl, () => lifecycleBody()) : undefined;
    const externals = {
      postgresPort: Number(new URL(target.storeUrl).port || 5432),
      kafkaPort: kafkaPort(target.brokerUrl),
    };
    measured.push({
      mode: 'distributed',
      result: await run(() => launchDistributed(target, appEnv), externals),
      ceiling,
    });
  }

  console.log(
    `\nFull lifecycles (initialize, require_confirmation=false → provider → COMPLETED → transaction.completed verified at the receiver), ` +
      `${IN_FLIGHT} in flight, ${SECONDS} s after ${WARMUP_SECONDS} s warm-up, sandbox latency ${SANDBOX_LATENCY_MS} ms, drain ${DRAIN_MS / 1_000} s`,
  );
  console.log(`${cpus().length} cores, load average at start ${startLoad.toFixed(2)}\n`);
  console.log(
    '| target | lifecycles/s | p50 ms | p99 ms | initialize p99 ms | lost | errors | share of its write ceiling |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  const share = (result: Result, ceiling?: Row) =>
    ceiling ? (100 * result.perSecond) / ceiling.requestsPerSecond : NaN;
  for (const { result, ceiling } of measured) {
    if (ceiling)
      console.log(
        `| ${ceiling.target} (req/s) | ${Math.round(ceiling.requestsPerSecond)} | ${ms(ceiling.p50Ms)} | ${ms(ceiling.p99Ms)} | - | - | ${ceiling.errors} | - |`,
      );
    const ofText = ceiling
      ? `${ms(share(result, ceiling))}% of ${Math.round(ceiling.requestsPerSecond)} req/s`
      : 'not measured (BENCH_CEILINGS=0)';
    console.log(
      `| ${result.target} | ${Math.round(result.perSecond)} | ${ms(result.p50Ms)} | ${ms(result.p99Ms)} | ${ms(result.requestP99Ms)} | ${result.lost} | ${result.errors} | ${ofText} |`,
    );
  }
  for (const { result, ceiling } of measured) {
    console.log(`\n${result.target}:`);
    for (const note of result.notes) console.log(`- ${note}`);
    console.log(`- CPU over the window (% of one core): ${result.cpu}`);
    if (ceiling) console.log(`- CPU of its ceiling: ${ceiling.cpu}`);
  }
  for (const { result } of measured) printCosts(result);

  console.log('');
  for (const mode of ['standalone', 'distributed'] as const) {
    const text = `Aim: full lifecycles ${mode} >= ${AIMS.ceilingPercent}% of its write ceiling, p99 initialize-to-callback < ${AIMS.p99Ms / 1_000} s at ${IN_FLIGHT} in flight, zero lost callbacks, zero errors`;
    const found = measured.find((m) => m.mode === mode);
    if (!found) {
      console.log(`${text}: not measured`);
      continue;
    }
    const { result, ceiling } = found;
    const ofText = ceiling
      ? ` (${ms(share(result, ceiling))}% of its write ceiling, ${Math.round(ceiling.requestsPerSecond)} req/s)`
      : ' (no ceiling measured: BENCH_CEILINGS=0)';
    const ok =
      ceiling !== undefined &&
      share(result, ceiling) >= AIMS.ceilingPercent &&
      result.p99Ms < AIMS.p99Ms &&
      result.lost === 0 &&
      result.errors === 0;
    console.log(
      `${text}: ${Math.round(result.perSecond)}/s${ofText}, p99 ${ms(result.p99Ms)} ms, ${result.lost} lost, ${result.errors} errors ${met(ok)}`,
    );
  }
  for (const mode of ['standalone', 'distributed'] as const) {
    const text = `Aim: ${mode} <= ${COST_AIMS.statements} SQL statements and <= ${COST_AIMS.httpRequests} HTTP requests in per lifecycle (Paygate's apps; CPU is the run's reading)`;
    const found = measured.find((m) => m.mode === mode)?.result;
    if (!found || found.cost.items === 0) {
      console.log(`${text}: ${found ? 'no lifecycle completed' : 'not measured'}`);
      continue;
    }
    const { window, items } = found.cost;
    const total = appTotal(window);
    const statements = statementsIn(total) / items;
    const httpRequests = total.http / items;
    const cpu = paygateCpuMs(window, items);
    const ok = statements <= COST_AIMS.statements && httpRequests <= COST_AIMS.httpRequests;
    console.log(
      `${text}: ${fig(statements)} statements, ${fig(httpRequests)} requests (${fig(cpu.ms)} ms of CPU) ${met(ok)}`,
    );
  }
  const idleText = `Aim: idle < ${COST_AIMS.idleCorePercent}% of a core per app`;
  const idle = measured.filter((m) => m.result.idle);
  if (idle.length === 0) console.log(`${idleText}: not measured${IDLE_SECONDS > 0 ? '' : ' (BENCH_IDLE_SECONDS=0)'}`);
  else {
    const shares = (window: Window) =>
      appCores(window)
        .map((app) => `${app.name} ${app.percent.toFixed(2)}%`)
        .join(', ');
    const figures = idle
      .map(({ mode, result }) => `${mode} ${shares(result.idle!)} (right after the load: ${shares(result.afterLoad!)})`)
      .join('; ');
    const ok = idle.every(({ result }) =>
      appCores(result.idle!).every((app) => app.percent < COST_AIMS.idleCorePercent),
    );
    console.log(`${idleText}: ${figures} ${met(ok)}`);
  }
}

main().catch(async (error) => {
  console.error(error);
  await stopAll();
  process.exit(1);
});
