import { describeWithService, uniqueSchema } from '@paygate/testing';
import { defineMigrations, migrate, MigrationError, verifyMigrationsOnly } from './migrations';
import { openSqlDatabase } from './open-sql-database';
import type { SqlDatabase } from './sql-database';

/** None of these statements can run twice: a second application would fail the test. */
const ledger = (extra: string[] = []) =>
  defineMigrations('ledger', [
    {
      name: '0001_entries',
      statements: [
        'create table ledger_entries (id int primary key, amount bigint not null)',
        "insert into ran (what) values ('ledger/1')",
      ],
    },
    {
      name: '0002_memo',
      statements: [
        'alter table ledger_entries add column memo text',
        "insert into ran (what) values ('ledger/2')",
        ...extra,
      ],
    },
  ]);
const audit = defineMigrations('audit', [
  {
    name: '0001_audit_log',
    statements: ['create table audit_log (at timestamptz not null)', "insert into ran (what) values ('audit/1')"],
  },
]);

interface Engine {
  /** A new handle on the same database, as a process starting would open it. */
  open(): Promise<SqlDatabase>;
  /** Handles that may run at once: two for PostgreSQL (two processes), the one handle for PGlite (one process). */
  concurrent(): Promise<SqlDatabase[]>;
  dispose(): Promise<void>;
}

/** Counts the statements sent through `db`, to show what a start costs. */
function counting(db: SqlDatabase): SqlDatabase & { statements: number } {
  const counted = Object.create(db) as SqlDatabase & { statements: number };
  counted.statements = 0;
  counted.query = (text, params) => {
    counted.statements++;
    return db.query(text, params);
  };
  counted.transaction = (work) => {
    counted.statements++;
    return db.transaction(work);
  };
  return counted;
}

async function runs(db: SqlDatabase): Promise<string[]> {
  return (await db.query<{ what: string }>('select what from ran order by what')).map((row) => row.what);
}

function runnerSuite(engine: () => Engine) {
  let current: Engine;
  const open: SqlDatabase[] = [];
  const handle = async () => {
    const db = await current.open();
    open.push(db);
    await db.query('create table if not exists ran (what text not null)');
    return db;
  };
  const closeAll = async () => {
    for (const db of open.splice(0)) await db.close();
  };

  beforeEach(() => {
    current = engine();
  });
  afterEach(async () => {
    await closeAll();
    await current.dispose();
  });

  it('applies every migration of a fresh database once, in the order given, and records it', async () => {
    const db = await handle();
    const applied = await migrate(db, [...ledger(), ...audit]);
    expect(applied.map((m) => m.id)).toEqual(['ledger/0001_entries', 'ledger/0002_memo', 'audit/0001_audit_log']);
    expect(await runs(db)).toEqual(['audit/1', 'ledger/1', 'ledger/2']);
    const recorded = await db.query<{ owner: string; version: number; name: string; checksum: string }>(
      'select owner, version, name, checksum from schema_migrations order by owner, version',
    );
    expect(recorded).toEqual([
      { owner: 'audit', version: 1, name: '0001_audit_log', checksum: audit[0].checksum },
      { owner: 'ledger', version: 1, name: '0001_entries', checksum: ledger()[0].checksum },
      { owner: 'ledger', version: 2, name: '0002_memo', checksum: ledger()[1].checksum },
    ]);
    await db.query("insert into ledger_entries (id, amount, memo) values (1, 500, 'kept')");

    expect(await migrate(db, [...ledger(), ...audit])).toEqual([]);
    await closeAll();
    const restarted = await handle();
    expect(await migrate(restarted, [...ledger(), ...audit])).toEqual([]);
    expect(await runs(restarted)).toEqual(['audit/1', 'ledger/1', 'ledger/2']);
    expect(await restarted.query('select id, cast(amount as int) as amount, memo from ledger_entries')).toEqual([
      { id: 1, amount: 500, memo: 'kept' },
    ]);
  });

  it('applies only what a newer release adds', async () => {
    const db = await handle();
    await migrate(db, ledger().slice(0, 1));
    expect((await migrate(db, ledger())).map((m) => m.id)).toEqual(['ledger/0002_memo']);
    expect(await runs(db)).toEqual(['ledger/1', 'ledger/2']);
  });

  it('reads schema_migrations once per start: libraries opening an up-to-date database cost one statement in all', async () => {
    await migrate(await handle(), [...ledger(), ...audit]);
    await closeAll();
    const db = counting(await handle());
    await migrate(db, ledger());
    await migrate(db, audit);
    await migrate(db, ledger());
    expect(db.statements).toBe(1);
  });

  it('applies each migration once when runners start together', async () => {
    const runners = await current.concurrent();
    open.push(...runners);
    await runners[0].query('create table if not exists ran (what text not null)');
    const results = await Promise.all([...runners, ...runners].map((db) => migrate(db, [...ledger(), ...audit])));
    expect(
      results
        .flat()
        .map((m) => m.id)
        .sort(),
    ).toEqual(['audit/0001_audit_log', 'ledger/0001_entries', 'ledger/0002_memo']);
    expect(await runs(runners[0])).toEqual(['audit/1', 'ledger/1', 'ledger/2']);
  });

  it('refuses to start when an applied migration has changed, naming it; re-indenting is no change', async () => {
    await migrate(await handle(), ledger());
    await closeAll();
    const db = await handle();
    const reindented = defineMigrations(
      'ledger',
      ledger().map((m) => ({ name: m.name, statements: m.statements.map((s) => `\n    ${s.replace(/ /g, '  ')}\n`) })),
    );
    expect(await migrate(db, reindented)).toEqual([]);

    const changed = migrate(db, ledger(['create index ledger_amount on ledger_entries (amount)']));
    await expect(changed).rejects.toThrow(MigrationError);
    await expect(changed).rejects.toThrow(
      /^migration ledger\/0002_memo differs from the one applied to this database \(checksum [0-9a-f]{12}, this release [0-9a-f]{12}\): restore it and put the change in a new migration$/,
    );
    const renamed = defineMigrations('ledger', [{ name: '0001_ledger_entries', statements: ledger()[0].statements }]);
    await expect(migrate(db, renamed)).rejects.toThrow(
      'migration ledger/0001_ledger_entries was applied as ledger/0001_entries: a released migration is never renamed',
    );
  });

  it('rolls back a migration that fails, with the statements applied with it, and names it', async () => {
    const db = await handle();
    const broken = ledger(['select no_such_column from ledger_entries']);
    await expect(migrate(db, broken)).rejects.toThrow(/^migration ledger\/0002_memo failed: .*no_such_column/);
    expect(await runs(db)).toEqual([]);
    await expect(db.query('select 1 from ledger_entries')).rejects.toThrow(/ledger_entries/);
    await expect(db.query('select 1 from schema_migrations')).rejects.toThrow(/schema_migrations/);
    // Fixed in the next build, it applies.
    expect((await migrate(db, ledger())).map((m) => m.id)).toEqual(['ledger/0001_entries', 'ledger/0002_memo']);
  });

  it('with MIGRATE_ON_START=false refuses a database that lacks a migration, changing nothing, and starts once it was migrated', async () => {
    const app = await handle();
    verifyMigrationsOnly(app);
    await expect(migrate(app, [...ledger(), ...audit])).rejects.toThrow(
      'the database lacks migrations ledger/0001_entries, ledger/0002_memo, audit/0001_audit_log: run "paygate migrate" first (MIGRATE_ON_START is false)',
    );
    expect(await runs(app)).toEqual([]);
    await closeAll();

    await migrate(await handle(), [...ledger().slice(0, 1), ...audit]);
    await closeAll();
    const upgraded = await handle();
    verifyMigrationsOnly(upgraded);
    await expect(migrate(upgraded, ledger())).rejects.toThrow(
      'the database lacks migration ledger/0002_memo: run "paygate migrate" first',
    );
    await expect(migrate(upgraded, audit)).resolves.toEqual([]);
  });
}

describe.each(['pglite', 'sqlite'])('migrations on %s', (engine) => {
  // One embedded database, emptied after each test; each start of a process is a new handle on
  // it (the runner keeps what it has read per handle).
  let database: Promise<SqlDatabase>;
  beforeAll(() => {
    database = openSqlDatabase(`${engine}://memory`);
  });
  afterAll(async () => (await database).close());
  const start = async (): Promise<SqlDatabase> => ({ ...(await database), close: async () => undefined });
  runnerSuite(() => ({
    open: start,
    concurrent: async () => [await start()],
    dispose: async () => {
      for (const table of ['ran', 'ledger_entries', 'audit_log', 'counters', 'schema_migrations'])
        await (await database).query(`drop table if exists ${table}`);
    },
  }));

  it("applies a migration's SQLite form on SQLite and PostgreSQL's elsewhere, recording the checksum of the one applied", async () => {
    const counters = defineMigrations('counters', [
      {
        name: '0001_counters',
        statements: ['create table counters (id int generated always as identity, n int)'],
        sqlite: ['create table counters (id integer primary key autoincrement, n int)'],
      },
    ]);
    const db = await start();
    await migrate(db, counters);
    await db.query('insert into counters (n) values (7)');
    expect(await db.query('select id, n from counters')).toEqual([{ id: 1, n: 7 }]);
    const form = engine === 'sqlite' ? counters[0].sqlite! : counters[0];
    expect(await db.query("select checksum from schema_migrations where owner = 'counters'")).toEqual([
      { checksum: form.checksum },
    ]);
    for (const table of ['counters', 'schema_migrations']) await db.query(`drop table ${table}`);
  });
});

describeWithService('postgres', 'migrations on PostgreSQL', (url) => {
  runnerSuite(() => {
    const schema = uniqueSchema('migrations');
    return {
      open: () => openSqlDatabase(url, { schema }),
      concurrent: () => Promise.all([openSqlDatabase(url, { schema }), openSqlDatabase(url, { schema })]),
      dispose: async () => {
        const db = await openSqlDatabase(url, { schema });
        await db.query(`drop schema ${schema} cascade`);
        await db.close();
      },
    };
  });
});

describe('defineMigrations', () => {
  it('refuses a list that is not numbered 0001, 0002, … in order', () => {
    expect(() => defineMigrations('ledger', [{ name: '0002_entries', statements: [] }])).toThrow(
      'migration ledger/0002_entries must be named 0001_<words>',
    );
    expect(() =>
      defineMigrations('ledger', [
        { name: '0001_a', statements: [] },
        { name: '0001_b', statements: [] },
      ]),
    ).toThrow('migration ledger/0001_b must be named 0002_<words>');
    expect(() => defineMigrations('Ledger', [])).toThrow(/migration owner "Ledger" must match/);
  });
});
