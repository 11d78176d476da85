import { createHash } from 'node:crypto';
import type { SqlClient, SqlDatabase } from './sql-database';

/** A migration's statements in one dialect, and their checksum. */
export interface MigrationForm {
  readonly statements: readonly string[];
  readonly checksum: string;
}

/**
 * One numbered schema change owned by one library, `<owner>/<NNNN>_<name>`. Once released it is
 * never edited: its checksum is recorded when it is applied, and a changed one stops the start.
 * `statements` are PostgreSQL's (and PGlite's); `sqlite` is there where SQLite's SQL differs.
 */
export interface Migration extends MigrationForm {
  readonly id: string;
  readonly owner: string;
  readonly version: number;
  readonly name: string;
  readonly sqlite?: MigrationForm;
}

export class MigrationError extends Error {
  override readonly name = 'MigrationError';
}

const OWNER = /^[a-z][a-z0-9-]*$/;
const NAME = /^(\d{4})_[a-z0-9_]+$/;

/** Whitespace is not a change: re-indenting a released migration keeps its checksum. */
function checksumOf(statements: readonly string[]): string {
  const normalised = statements.map((statement) => statement.replace(/\s+/g, ' ').trim()).join(';\n');
  return createHash('sha256').update(normalised).digest('hex');
}

/**
 * A library's migrations, in order: `0001_…`, `0002_…`, numbered without gaps. Each runs in one
 * transaction with its record in `schema_migrations`, so it is all applied or not at all.
 */
export function defineMigrations(
  owner: string,
  migrations: ReadonlyArray<{ name: string; statements: readonly string[]; sqlite?: readonly string[] }>,
): readonly Migration[] {
  if (!OWNER.test(owner)) throw new Error(`migration owner "${owner}" must match ${OWNER}`);
  const formOf = (statements: readonly string[]): MigrationForm =>
    Object.freeze({ statements: Object.freeze([...statements]), checksum: checksumOf(statements) });
  return migrations.map(({ name, statements, sqlite }, index) => {
    const version = Number(NAME.exec(name)?.[1]);
    if (version !== index + 1)
      throw new Error(`migration ${owner}/${name} must be named ${String(index + 1).padStart(4, '0')}_<words>`);
    return Object.freeze({
      id: `${owner}/${name}`,
      owner,
      version,
      name,
      ...formOf(statements),
      ...(sqlite && { sqlite: formOf(sqlite) }),
    });
  });
}

/** The form `db` runs: SQLite's where the migration has one. */
const formFor = (db: SqlDatabase, migration: Migration): MigrationForm =>
  (db.dialect === 'sqlite' && migration.sqlite) || migration;

/** The same statement on every engine (SQLite keeps current_timestamp as UTC text). */
const CREATE_MIGRATIONS_TABLE = `create table if not exists schema_migrations (
  owner text not null,
  version integer not null,
  name text not null,
  checksum text not null,
  applied_at timestamptz not null default current_timestamp,
  primary key (owner, version)
)`;

/**
 * Processes starting together apply each migration once: on PostgreSQL a transaction-scoped
 * advisory lock on the schema; SQLite's BEGIN IMMEDIATE already holds the file's write lock.
 */
const LOCK_MIGRATIONS: Record<SqlDatabase['dialect'], string | undefined> = {
  postgres: `select pg_advisory_xact_lock(hashtext('paygate-migrations:' || current_schema()))`,
  sqlite: undefined,
};

/** Applied migrations by `<owner>/<version>`. */
type Applied = Map<string, { name: string; checksum: string }>;

interface DatabaseState {
  applyPending: boolean;
  /** Read once per database handle (once per start); then kept up to date by this process. */
  applied?: Promise<Applied>;
}

const states = new WeakMap<SqlDatabase, DatabaseState>();

function stateOf(db: SqlDatabase): DatabaseState {
  let state = states.get(db);
  if (!state) states.set(db, (state = { applyPending: true }));
  return state;
}

/** PostgreSQL's SQLSTATE, or SQLite's message (its code is SQLITE_ERROR, shared by every mistake). */
const isUndefinedTable = (error: unknown) => {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return code === '42P01' || (typeof message === 'string' && message.startsWith('no such table: schema_migrations'));
};

async function readApplied(client: SqlClient): Promise<Applied> {
  try {
    const rows = await client.query<{ owner: string; version: number; name: string; checksum: string }>(
      'select owner, version, name, checksum from schema_migrations',
    );
    return new Map(rows.map((row) => [`${row.owner}/${row.version}`, { name: row.name, checksum: row.checksum }]));
  } catch (error) {
    if (isUndefinedTable(error)) return new Map();
    throw error;
  }
}

/** The migrations of `wanted` not applied yet; refuses an applied one that has changed since. */
function pendingOf(db: SqlDatabase, wanted: readonly Migration[], applied: Applied): Migration[] {
  return wanted.filter((migration) => {
    const { checksum } = formFor(db, migration);
    const recorded = applied.get(`${migration.owner}/${migration.version}`);
    if (!recorded) return true;
    if (recorded.name !== migration.name) {
      throw new MigrationError(
        `migration ${migration.id} was applied as ${migration.owner}/${recorded.name}: a released migration is never renamed`,
      );
    }
    if (recorded.checksum !== checksum) {
      throw new MigrationError(
        `migration ${migration.id} differs from the one applied to this database (checksum ${recorded.checksum.slice(0, 12)}, this release ${checksum.slice(0, 12)}): restore it and put the change in a new migration`,
      );
    }
    return false;
  });
}

/**
 * Makes `migrate` on this database only check that every migration asked for was applied, and
 * refuse to go on otherwise (MIGRATE_ON_START=false: a `paygate migrate` Job applies them).
 */
export function verifyMigrationsOnly(db: SqlDatabase): void {
  stateOf(db).applyPending = false;
}

/**
 * Applies the migrations of `migrations` this database lacks, in the order given, and returns
 * them. Every library calls it with its own list when its tables are first needed: the first call
 * on a database handle reads `schema_migrations` once, and later ones cost nothing when nothing
 * is missing. Applying holds a lock (LOCK_MIGRATIONS), so processes starting together apply
 * each migration once. PGlite runs PostgreSQL's statements; SQLite a migration's `sqlite` form
 * where it has one.
 */
export async function migrate(db: SqlDatabase, migrations: readonly Migration[]): Promise<Migration[]> {
  const state = stateOf(db);
  const known =
    state.applied ??
    (state.applied = readApplied(db).catch((error: unknown) => {
      state.applied = undefined;
      throw error;
    }));
  const pending = pendingOf(db, migrations, await known);
  if (pending.length === 0) return [];
  if (!state.applyPending) {
    // Read again next time: `paygate migrate` may apply them while this process waits.
    state.applied = undefined;
    throw new MigrationError(
      `the database lacks ${pending.length === 1 ? 'migration' : 'migrations'} ${pending.map((m) => m.id).join(', ')}: run "paygate migrate" first (MIGRATE_ON_START is false)`,
    );
  }
  const { applied, done } = await db.transaction(async (tx) => {
    const lock = LOCK_MIGRATIONS[db.dialect];
    if (lock) await tx.query(lock);
    await tx.query(CREATE_MIGRATIONS_TABLE);
    // Another process may have applied some while this one waited for the lock.
    const current = await readApplied(tx);
    const todo = pendingOf(db, migrations, current);
    for (const migration of todo) {
      const { statements, checksum } = formFor(db, migration);
      try {
        for (const statement of statements) await tx.query(statement);
      } catch (error) {
        throw new MigrationError(
          `migration ${migration.id} failed: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      await tx.query('insert into schema_migrations (owner, version, name, checksum) values ($1, $2, $3, $4)', [
        migration.owner,
        migration.version,
        migration.name,
        checksum,
      ]);
    }
    return { applied: current, done: todo };
  });
  for (const migration of done)
    applied.set(`${migration.owner}/${migration.version}`, {
      name: migration.name,
      checksum: formFor(db, migration).checksum,
    });
  state.applied = Promise.resolve(applied);
  return done;
}
