/**
 * Job queue benchmark: what one claim costs with 1,000 and with 100,000 jobs due, on PGlite and
 * PostgreSQL. The claim reads the due end of its index and stops after its window, so its cost
 * should not grow with the backlog (#19: "the claim's cost does not grow with the backlog").
 *
 *   npm run bench:jobs                       PGlite, plus PostgreSQL at BENCH_POSTGRES_URL
 *   BENCH_CLAIMS=300 (per measurement)       default 300, after 30 unmeasured
 *   BENCH_POSTGRES_URL=postgres://…          default postgres://root@127.0.0.1:5432/test; a fresh
 *                                            schema, dropped afterwards; unreachable = skipped
 *   BENCH_ENGINES=pglite,postgres            default both
 *
 * Each claim takes 50 jobs; they are put back due (a retry at once) in one statement that is not
 * timed, so the backlog stays the same size while the claims rotate through it. "capped" claims
 * with a cap of 4 per lane over 100 lanes (callbacks' per-receiver fairness).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqlJobQueue } from '@paygate/jobs';
import { openSqlDatabase, type SqlDatabase } from '@paygate/sql';
import { met, ms, percentile } from './figures';

const CLAIMS = Number(process.env.BENCH_CLAIMS ?? 300);
const WARMUP = 30;
const POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://root@127.0.0.1:5432/test';
const ENGINES = (process.env.BENCH_ENGINES ?? 'pglite,postgres').split(',').map((engine) => engine.trim());
const BACKLOGS = [1_000, 100_000];
const LIMIT = 50;
const AIM_RATIO = 1.5;

interface Row {
  engine: string;
  claim: 'plain' | 'capped';
  backlog: number;
  p50: number;
  p99: number;
  perClaim: number;
}

async function measure(engine: string, db: SqlDatabase, backlog: number, claim: Row['claim']): Promise<Row> {
  const queue = new SqlJobQueue(`bench-${claim}-${backlog}`);
  await db.query(
    `insert into jobs (queue, key, lane, due_at, run_at)
     select $1, 'job-' || n, 'lane-' || (n % 100), now() - interval '1 hour', now() - interval '1 hour' + (n || ' milliseconds')::interval from generate_series(1, $2::int) n`,
    [queue.name, backlog],
  );
  await db.query('analyze jobs');
  const took: number[] = [];
  let claimed = 0;
  for (let i = 0; i < WARMUP + CLAIMS; i++) {
    const started = process.hrtime.bigint();
    const jobs = await queue.claim(db, { limit: LIMIT, laneCap: claim === 'capped' ? 4 : undefined });
    const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
    if (i >= WARMUP) {
      took.push(elapsed);
      claimed += jobs.length;
    }
    await queue.retryLater(
      db,
      jobs.map((job) => ({ job, at: new Date() })),
    );
  }
  await db.query('delete from jobs where queue = $1', [queue.name]);
  took.sort((a, b) => a - b);
  return { engine, claim, backlog, p50: percentile(took, 50), p99: percentile(took, 99), perClaim: claimed / CLAIMS };
}

async function measureEngine(engine: string, db: SqlDatabase, rows: Row[]): Promise<void> {
  await SqlJobQueue.migrate(db);
  for (const claim of ['plain', 'capped'] as const)
    for (const backlog of BACKLOGS) rows.push(await measure(engine, db, backlog, claim));
}

async function main() {
  const rows: Row[] = [];
  if (ENGINES.includes('pglite')) {
    const dir = mkdtempSync(join(tmpdir(), 'paygate-bench-'));
    try {
      const db = await openSqlDatabase(`pglite://${dir}`);
      await measureEngine('PGlite (on disk)', db, rows);
      await db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const schema = `bench_${Date.now().toString(36)}`;
  let postgres: SqlDatabase | undefined;
  try {
    if (ENGINES.includes('postgres')) postgres = await openSqlDatabase(POSTGRES_URL, { schema });
  } catch (error) {
    console.log(`PostgreSQL skipped (${POSTGRES_URL}): ${(error as Error).message}`);
  }
  if (postgres) {
    try {
      await measureEngine('PostgreSQL', postgres, rows);
    } finally {
      await postgres.query(`drop schema ${schema} cascade`);
      await postgres.close();
    }
  }

  console.log(`\nJob queue claims, ${CLAIMS} claims of up to ${LIMIT} jobs per measurement, every job due\n`);
  console.log('| engine | claim | jobs due | claim p50 | claim p99 | jobs per claim |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rows)
    console.log(
      `| ${r.engine} | ${r.claim} | ${r.backlog.toLocaleString('en')} | ${ms(r.p50)} ms | ${ms(r.p99)} ms | ${r.perClaim.toFixed(1)} |`,
    );
  console.log('');
  for (const engine of ['PGlite (on disk)', 'PostgreSQL']) {
    for (const claim of ['plain', 'capped'] as const) {
      const at = (backlog: number) =>
        rows.find((r) => r.engine === engine && r.claim === claim && r.backlog === backlog);
      const small = at(BACKLOGS[0]);
      const large = at(BACKLOGS[1]);
      const ratio = small && large ? large.p50 / small.p50 : NaN;
      console.log(
        `Aim: ${engine} ${claim} claim p50 at 100,000 due <= ${AIM_RATIO}x at 1,000: ${small && large ? `${ratio.toFixed(2)}x ${met(ratio <= AIM_RATIO)}` : 'not measured'}`,
      );
    }
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
