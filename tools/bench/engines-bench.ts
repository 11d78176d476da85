/**
 * Embedded engines benchmark: what one statement costs each engine Paygate could embed, bare
 * (no Paygate code), on files in a fresh temporary directory. It measures the one write an append
 * cannot avoid (a transaction inserting an event under a unique stream/version key) and a point
 * read of it, one at a time, and prints CPU and wall time per operation. ADR 0005 decides the
 * standalone engine on these figures.
 *
 *   npm run bench:engines                    PGlite (Paygate's embedded engine), Node's built-in
 *                                            SQLite (node:sqlite, Node 24) at full and normal
 *                                            sync, and whichever SQLite packages are installed:
 *   npm install --no-save better-sqlite3    SQLite, native (compiles where no prebuilt binary
 *                                            downloads; here: npm_config_nodedir=/usr)
 *   npm install --no-save node-sqlite3-wasm SQLite compiled to WebAssembly, files through node:fs
 *   BENCH_OPERATIONS=5000                    operations per measurement
 *
 * The aim is the share of the standalone lifecycle budget (8 ms of CPU, issue #28) a database
 * may take: half of it over the lifecycle's statements (docs/benchmarks.md, "Cost per lifecycle").
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { PGlite } from '@electric-sql/pglite';
import { met } from './figures';

const OPERATIONS = Number(process.env.BENCH_OPERATIONS ?? 5_000);
/** Statements in a standalone lifecycle under load (docs/benchmarks.md). */
const LIFECYCLE_STATEMENTS = 38;
const AIM_CPU_MS = 8 / 2 / LIFECYCLE_STATEMENTS;

const payload = (i: number) => JSON.stringify({ amount: 1_000 + i, currency: 'UGX', note: 'x'.repeat(200) });

/** One engine under test: a write (its own transaction) and a read of what the write stored. */
interface Engine {
  name: string;
  durability: string;
  write(i: number): unknown;
  read(i: number): unknown;
  close(): unknown;
}

interface Figures {
  cpuMs: number;
  wallMs: number;
}

async function perOperation(work: (i: number) => unknown): Promise<Figures> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < OPERATIONS; i++) await work(i);
  const wall = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { cpuMs: (used.user + used.system) / 1_000 / OPERATIONS, wallMs: wall / OPERATIONS };
}

async function pglite(dir: string): Promise<Engine> {
  const db = await PGlite.create(join(dir, 'pglite'));
  await db.exec(
    'create table events (position bigserial primary key, stream text not null, version int not null, data jsonb not null, unique (stream, version))',
  );
  return {
    name: 'PGlite (@electric-sql/pglite)',
    durability: 'its defaults, as Paygate opens it',
    write: (i) =>
      db.transaction((tx) =>
        tx.query('insert into events (stream, version, data) values ($1, 0, $2)', [`s-${i}`, payload(i)]),
      ),
    read: (i) => db.query('select data from events where stream = $1 and version = 0', [`s-${i}`]),
    close: () => db.close(),
  };
}

/** The subset of better-sqlite3's and node-sqlite3-wasm's APIs used here. */
interface SqliteStatement {
  run(...values: unknown[]): unknown;
  get(...values: unknown[]): unknown;
}
interface SqliteDatabase {
  exec(sql: string): unknown;
  prepare(sql: string): SqliteStatement;
  close(): unknown;
}

const SCHEMA =
  'create table events (position integer primary key, stream text not null, version integer not null, data text not null, unique (stream, version))';

function sqlite(db: SqliteDatabase, name: string, durability: string, spread: boolean): Engine {
  db.exec(SCHEMA);
  const insert = db.prepare('insert into events (stream, version, data) values (?, 0, ?)');
  const select = db.prepare('select data from events where stream = ? and version = 0');
  // better-sqlite3 takes the values as arguments, node-sqlite3-wasm as one array.
  const args = (...values: unknown[]) => (spread ? values : [values]);
  return {
    name,
    durability,
    write: (i) => {
      db.exec('begin');
      insert.run(...args(`s-${i}`, payload(i)));
      db.exec('commit');
    },
    read: (i) => select.get(...args(`s-${i}`)),
    close: () => db.close(),
  };
}

const load = createRequire(__filename);

function optional<T>(module: string): T | undefined {
  try {
    return load(module) as T;
  } catch {
    return undefined;
  }
}

type Opener = (dir: string) => Promise<Engine> | Engine | string;

/** node:sqlite with WAL: `full` syncs the WAL at every commit (durable through a power cut), `normal` at checkpoints. */
const nodeSqlite =
  (synchronous: 'full' | 'normal'): Opener =>
  (dir) => {
    const db = new DatabaseSync(join(dir, `node-${synchronous}.sqlite`));
    db.exec(`pragma journal_mode = wal; pragma synchronous = ${synchronous}`);
    return sqlite(db, 'SQLite, built in (node:sqlite)', `WAL, synchronous=${synchronous}`, true);
  };

const ENGINES: Opener[] = [
  pglite,
  nodeSqlite('full'),
  nodeSqlite('normal'),
  (dir) => {
    const Database = optional<new (file: string) => SqliteDatabase>('better-sqlite3');
    if (!Database) return 'SQLite, native (better-sqlite3): not installed';
    const db = new Database(join(dir, 'native.sqlite'));
    db.exec('pragma journal_mode = wal; pragma synchronous = normal');
    return sqlite(db, 'SQLite, native (better-sqlite3)', 'WAL, synchronous=normal', true);
  },
  (dir) => {
    const wasm = optional<{ Database: new (file: string) => SqliteDatabase }>('node-sqlite3-wasm');
    if (!wasm) return 'SQLite, WebAssembly (node-sqlite3-wasm): not installed';
    // Its file system layer has no shared memory, so no WAL: the rollback journal, kept in memory.
    const db = new wasm.Database(join(dir, 'wasm.sqlite'));
    db.exec('pragma journal_mode = memory; pragma synchronous = off');
    return sqlite(db, 'SQLite, WebAssembly (node-sqlite3-wasm)', 'journal in memory, synchronous=off', false);
  },
];

const fig = (value: number) => value.toFixed(3);

async function main() {
  console.log(`${OPERATIONS} operations each, one at a time, on ${process.version}\n`);
  console.log('| engine | durability | write CPU ms | write wall ms | read CPU ms | read wall ms |');
  console.log('|---|---|---|---|---|---|');
  const aims: string[] = [];
  for (const open of ENGINES) {
    const dir = mkdtempSync(join(tmpdir(), 'paygate-engines-'));
    try {
      const engine = await open(dir);
      if (typeof engine === 'string') {
        console.log(`| ${engine} | | | | | |`);
        continue;
      }
      const write = await perOperation(engine.write);
      const read = await perOperation(engine.read);
      await engine.close();
      console.log(
        `| ${engine.name} | ${engine.durability} | ${fig(write.cpuMs)} | ${fig(write.wallMs)} | ${fig(read.cpuMs)} | ${fig(read.wallMs)} |`,
      );
      aims.push(`${engine.name} ${fig(write.cpuMs)} ms ${met(write.cpuMs <= AIM_CPU_MS)}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  console.log(
    `\nAim: a write in ≤ ${fig(AIM_CPU_MS)} ms of CPU (half of a standalone lifecycle's 8 ms over its ${LIFECYCLE_STATEMENTS} statements):`,
  );
  for (const aim of aims) console.log(`  ${aim}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
