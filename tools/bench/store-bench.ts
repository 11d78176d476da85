/**
 * Event-store benchmark: appends/s and subscription lag at 1 and 16 concurrent writers, next to
 * the raw single-row INSERT rate of the same database measured in the same run (the ceiling: the
 * bare engine doing the one write an append cannot avoid).
 *
 *   npm run bench:store                      PGlite, plus PostgreSQL at BENCH_POSTGRES_URL
 *   BENCH_SECONDS=5 (per measurement)        default 5
 *   BENCH_POSTGRES_URL=postgres://…          default postgres://root@127.0.0.1:5432/test; a fresh
 *                                            schema, dropped afterwards; unreachable = skipped
 *   BENCH_ENGINES=pglite,postgres            default both
 *
 * "seen live" is the share of the appended events that the subscription had handled when the
 * writers stopped: a subscription that cannot keep up, or is not scheduled at all, shows it
 * whatever its lag percentiles say.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eachEvent, SqlEventStore } from '@paygate/event-store';
import { openSqlDatabase, type SqlDatabase } from '@paygate/sql';
import { met } from './figures';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://root@127.0.0.1:5432/test';
const ENGINES = (process.env.BENCH_ENGINES ?? 'pglite,postgres').split(',').map((engine) => engine.trim());
const WRITER_COUNTS = [1, 16];

interface Row {
  engine: string;
  writers: number;
  rawInsertsPerSecond: number;
  appendsPerSecond: number;
  lagP50Ms: number;
  lagP99Ms: number;
  /** Share of the appended events handled by the subscription before the writers stopped. */
  seenLive: number;
}

/** Runs `work` in `writers` concurrent loops for SECONDS; returns operations per second. */
async function throughput(
  writers: number,
  work: (writer: number, i: number) => Promise<void>,
): Promise<{ perSecond: number; done: number }> {
  const deadline = Date.now() + SECONDS * 1000;
  let done = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: writers }, async (_, writer) => {
      for (let i = 0; Date.now() < deadline; i++) {
        await work(writer, i);
        done++;
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { perSecond: done / seconds, done };
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

async function measure(engine: string, db: SqlDatabase, writers: number): Promise<Row> {
  await db.query('create table if not exists bench_raw (id bigserial primary key, payload jsonb not null)');
  const payload = JSON.stringify({ amount: 81_000, currency: 'UGX', note: 'benchmark' });
  const raw = await throughput(writers, () =>
    db.query('insert into bench_raw (payload) values ($1::jsonb)', [payload]).then(() => undefined),
  );

  const store = await SqlEventStore.create(db);
  const prefix = `bench${Date.now().toString(36)}-`;
  const lags: number[] = [];
  const subscription = store.subscribeToAll(
    { streamPrefixes: [prefix] },
    eachEvent(async (event) => {
      lags.push(Date.now() - Number(event.data.appendedAt));
    }),
  );
  const appends = await throughput(writers, async (writer, i) => {
    await store.appendToStream(`${prefix}${writer}x${i % 50}`, [
      { type: 'BenchRecorded', data: { amount: 81_000, currency: 'UGX', note: 'benchmark', appendedAt: Date.now() } },
    ]);
  });
  const seenLive = lags.length / appends.done;
  await new Promise((resolve) => setTimeout(resolve, 500));
  await subscription.stop();
  lags.sort((a, b) => a - b);
  return {
    engine,
    writers,
    rawInsertsPerSecond: raw.perSecond,
    appendsPerSecond: appends.perSecond,
    lagP50Ms: percentile(lags, 50),
    lagP99Ms: percentile(lags, 99),
    seenLive,
  };
}

async function main() {
  const rows: Row[] = [];
  const pgliteDir = mkdtempSync(join(tmpdir(), 'paygate-bench-'));
  try {
    for (const writers of ENGINES.includes('pglite') ? WRITER_COUNTS : []) {
      const db = await openSqlDatabase(`pglite://${join(pgliteDir, String(writers))}`);
      rows.push(await measure('PGlite (on disk)', db, writers));
      await db.close();
    }
  } finally {
    rmSync(pgliteDir, { recursive: true, force: true });
  }

  const schema = `bench_${Date.now().toString(36)}`;
  let postgres: SqlDatabase | undefined;
  try {
    if (ENGINES.includes('postgres')) postgres = await openSqlDatabase(POSTGRES_URL, { schema, maxConnections: 20 });
  } catch (error) {
    console.log(`PostgreSQL skipped (${POSTGRES_URL}): ${(error as Error).message}`);
  }
  if (postgres) {
    try {
      for (const writers of WRITER_COUNTS) rows.push(await measure('PostgreSQL', postgres, writers));
    } finally {
      await postgres.query(`drop schema ${schema} cascade`);
      await postgres.close();
    }
  }

  console.log(`\nEvent store, ${SECONDS} s per measurement, one event per append\n`);
  console.log('| engine | writers | raw INSERT/s | appends/s | % of raw | lag p50 | lag p99 | seen live |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(
      `| ${r.engine} | ${r.writers} | ${Math.round(r.rawInsertsPerSecond)} | ${Math.round(r.appendsPerSecond)} | ` +
        `${Math.round((100 * r.appendsPerSecond) / r.rawInsertsPerSecond)}% | ${r.lagP50Ms} ms | ${r.lagP99Ms} ms | ${Math.round(100 * r.seenLive)}% |`,
    );
  }
  // Last, one line per #19 target, also when an engine was not measured.
  console.log('');
  const target = rows.find((r) => r.engine === 'PostgreSQL' && r.writers === 16);
  const ratio = target ? target.appendsPerSecond / target.rawInsertsPerSecond : NaN;
  console.log(
    `Aim: event store PostgreSQL >= 50% of raw INSERT at 16 writers: ${target ? `${Math.round(ratio * 100)}% ${met(ratio >= 0.5)}` : 'not measured'}`,
  );
  for (const engine of ['PGlite (on disk)', 'PostgreSQL']) {
    const measured = rows.filter((r) => r.engine === engine);
    const lags = measured.map((r) => `${r.lagP99Ms} ms at ${r.writers} writer${r.writers === 1 ? '' : 's'}`).join(', ');
    const ok = measured.every((r) => r.lagP99Ms < 50);
    console.log(
      `Aim: ${engine} subscription lag p99 < 50 ms at ${WRITER_COUNTS.join(' and ')} writers: ${measured.length === WRITER_COUNTS.length ? `${lags} ${met(ok)}` : 'not measured'}`,
    );
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
