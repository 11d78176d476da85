/**
 * API benchmark: `POST /v1/collections/initialize` driven by autocannon, next to its ceilings
 * driven the same way in the same run: a bare Node `http` server (this machine and client), and
 * the same server doing the one write an initialize cannot avoid, one INSERT per request on
 * PGlite (standalone's ceiling) or PostgreSQL (distributed's). Each target prints its share of
 * its ceiling and #19's aims say met or NOT met.
 *
 *   npm run bench:api                        ceilings and standalone (PGlite, in-process broker)
 *   STORE_URL=postgres://… BROKER_URL=kafka://… npm run bench:api
 *                                            also the PostgreSQL ceiling and distributed: two gateways,
 *                                            collections, dispatcher
 *   BENCH_ONLY=standalone                    only standalone and its PGlite ceiling (no bare ceiling, no distributed)
 *   BENCH_SECONDS=20 BENCH_CONNECTIONS=50    per target; defaults 20 and 50
 *   BENCH_WARMUP_SECONDS=3                   unmeasured load first (JIT, pools, consumer groups)
 *   BENCH_CPU_PROF=<dir>                     V8 CPU profiles of the app processes, written at exit
 *   BENCH_RATE_LIMITS=1                      rate limits on (far above the load, so nothing is refused):
 *                                            measures the limiter's cost; default off (RATE_LIMIT_ENABLED=false)
 *
 * Exits 0 whatever the figures (aims are reported, not asserted); 1 when setup fails.
 */
import { cpus, loadavg } from 'node:os';
import {
  createMerchant,
  DISTRIBUTED_SKIPPED,
  distributedTarget,
  launchDistributed,
  launchStandalone,
  mobileMoneyInitialize,
  runId,
  stopAll,
  type Layout,
} from './apps';
import {
  bareCeiling,
  CONNECTIONS,
  drive,
  pgliteCeiling,
  postgresCeiling,
  SECONDS,
  WARMUP_SECONDS,
  type Row,
} from './load';
import { met, ms } from './figures';

/** #19's targets: a share of the ceiling measured beside each in the same run, a p99, no errors. */
/** Issue #37's: shares of the write ceiling measured in the same run. */
const AIMS = { standalone: { share: 35, p99Ms: 100 }, distributed: { share: 18, p99Ms: 100 } };
const ONLY_STANDALONE = process.env.BENCH_ONLY === 'standalone';

let sequence = 0;
/** A fresh merchant_reference every time: a repeated one would be an idempotent replay, another path. */
const initializeBody = () => mobileMoneyInitialize(`bench-${runId}-${(sequence++).toString(36)}`, true);

/** One initialize per gateway before measuring, so a broken setup fails loudly instead of as 100% errors. */
async function checkInitialize(gateway: string, publicKey: string): Promise<void> {
  const response = await fetch(`${gateway}/v1/collections/initialize`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'public-key': publicKey },
    body: initializeBody(),
  });
  if (response.status !== 202)
    throw new Error(`initialize at ${gateway} answered ${response.status}: ${await response.text()}`);
}

/** Drives a layout's gateways with initializes for one merchant, after one initialize per gateway checks the setup. */
async function measure(layout: Layout): Promise<Row> {
  try {
    const { publicKey } = await createMerchant(layout.gateways[0].url);
    for (const gateway of layout.gateways) await checkInitialize(gateway.url, publicKey);
    return await drive(
      layout.name,
      layout.gateways.map((g) => g.url),
      { 'public-key': publicKey },
      layout.procs,
      initializeBody,
    );
  } finally {
    await layout.stop();
  }
}

const startLoad = loadavg()[0];

async function main() {
  const target = ONLY_STANDALONE ? undefined : distributedTarget();
  const bare = ONLY_STANDALONE ? undefined : await bareCeiling(initializeBody);
  const pglite = await pgliteCeiling(initializeBody);
  const alone = await measure(await launchStandalone());
  const rows: Array<{ row: Row; of?: Row }> = [
    ...(bare ? [{ row: bare }] : []),
    { row: pglite, of: bare },
    { row: alone, of: pglite },
  ];
  let spread: { row: Row; of: Row } | undefined;
  if (ONLY_STANDALONE) console.log('Distributed skipped: BENCH_ONLY=standalone');
  else if (target && bare) {
    const postgres = await postgresCeiling(target.storeUrl, initializeBody);
    spread = { row: await measure(await launchDistributed(target)), of: postgres };
    rows.push({ row: postgres, of: bare }, spread);
  } else console.log(DISTRIBUTED_SKIPPED);

  const share = (row: Row, of: Row) => (100 * row.requestsPerSecond) / of.requestsPerSecond;
  console.log(
    `\nPOST /v1/collections/initialize, ${CONNECTIONS} connections, ${SECONDS} s after ${WARMUP_SECONDS} s warm-up, no pipelining`,
  );
  // Client and servers share this machine's cores; other load skews every row, so say what it was.
  console.log(`${cpus().length} cores, load average at start ${startLoad.toFixed(2)}\n`);
  console.log('| target | req/s (202) | p50 ms | p99 ms | errors | share of its ceiling |');
  console.log('|---|---|---|---|---|---|');
  for (const { row, of } of rows) {
    const ofText = of
      ? `${Math.round(share(row, of))}% of ${of.target.replace(/^ceiling: /, '')}`
      : row === bare
        ? '(the bare ceiling)'
        : '-';
    console.log(
      `| ${row.target} | ${Math.round(row.requestsPerSecond)} | ${ms(row.p50Ms)} | ${ms(row.p99Ms)} | ${row.errors} | ${ofText} |`,
    );
  }
  console.log('\nCPU over each run (% of one core):');
  for (const { row } of rows) console.log(`- ${row.target}: ${row.cpu}`);

  const { standalone: aimAlone, distributed: aimSpread } = AIMS;
  console.log(
    `\nAim: standalone >= ${aimAlone.share}% of its PGlite ceiling, p99 < ${aimAlone.p99Ms} ms, zero errors: ` +
      `${Math.round(share(alone, pglite))}% (${Math.round(alone.requestsPerSecond)} of ${Math.round(pglite.requestsPerSecond)} req/s), p99 ${ms(alone.p99Ms)} ms, ${alone.errors} errors ` +
      met(share(alone, pglite) >= aimAlone.share && alone.p99Ms < aimAlone.p99Ms && alone.errors === 0),
  );
  const aimText = `distributed >= ${aimSpread.share}% of its PostgreSQL ceiling, p99 < ${aimSpread.p99Ms} ms, zero errors`;
  if (spread) {
    const { row, of } = spread;
    const ok = share(row, of) >= aimSpread.share && row.p99Ms < aimSpread.p99Ms && row.errors === 0;
    console.log(
      `Aim: ${aimText}: ${Math.round(row.requestsPerSecond)} req/s, ${Math.round(share(row, of))}% of ${Math.round(of.requestsPerSecond)}, p99 ${ms(row.p99Ms)} ms, ${row.errors} errors ${met(ok)}`,
    );
  } else console.log(`Aim: ${aimText}: not measured`);
}

main().catch(async (error) => {
  console.error(error);
  await stopAll();
  process.exit(1);
});
