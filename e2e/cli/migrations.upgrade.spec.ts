import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { migrate, openSqlDatabase, type SqlDatabase } from '@paygate/sql';
import { describeWithService, uniqueSchema } from '@paygate/testing';
import { paygateMigrations } from '@paygate/cli';

const ALL = paygateMigrations({ eventsInSql: true, sandbox: true });
/** Libraries whose tables came after release 0.1.0: their 0001 is not in its layout. */
const SINCE_RELEASE_010 = new Set(['jobs', 'disbursements']);

/** The statements of a fixture file (one per `;` at a line's end; `--` lines are comments). */
function statementsOf(file: string): string[] {
  const text = readFileSync(join(__dirname, 'fixtures', file), 'utf8')
    .split('\n')
    .filter((line) => !line.startsWith('--'))
    .join('\n');
  return text
    .split(/;\s*\n/)
    .map((statement) => statement.trim())
    .filter(Boolean);
}

/** A database as release 0.1.0 left it: its tables, created by today's frozen DDL, with rows in each. */
async function createdByRelease010(db: SqlDatabase): Promise<void> {
  for (const statement of [...statementsOf('schema-0.1.0.sql'), ...statementsOf('rows-0.1.0.sql')])
    await db.query(statement);
}

async function tablesOf(db: SqlDatabase): Promise<string[]> {
  const rows = await db.query<{ table_name: string }>(
    `select table_name from information_schema.tables
     where table_schema = current_schema() and table_type = 'BASE TABLE' and table_name <> 'schema_migrations' order by 1`,
  );
  return rows.map((row) => row.table_name);
}

/** Columns, constraints and indexes of every table but schema_migrations, free of the schema's name. */
async function layoutOf(db: SqlDatabase) {
  return {
    columns: await db.query(
      `select table_name, column_name, data_type, is_nullable, column_default from information_schema.columns
       where table_schema = current_schema() and table_name <> 'schema_migrations' order by 1, 2`,
    ),
    constraints: await db.query(
      `select conrelid::regclass::text as table_name, conname, pg_get_constraintdef(oid) as definition from pg_constraint
       where connamespace = current_schema()::regnamespace and conrelid::regclass::text <> 'schema_migrations' order by 1, 2`,
    ),
    indexes: await db.query(
      `select tablename, indexname, regexp_replace(indexdef, ' ON \\S+\\.', ' ON ') as definition from pg_indexes
       where schemaname = current_schema() and tablename <> 'schema_migrations' order by 1, 2`,
    ),
  };
}

/** Every row of every table, as JSON text, in a stable order. */
async function rowsOf(db: SqlDatabase): Promise<Record<string, string[]>> {
  const rows: Record<string, string[]> = {};
  for (const table of await tablesOf(db)) {
    rows[table] = (await db.query<{ row: string }>(`select to_jsonb(t)::text as row from ${table} t order by 1`)).map(
      (r) => r.row,
    );
  }
  return rows;
}

async function recorded(db: SqlDatabase): Promise<string[]> {
  const rows = await db.query<{ owner: string; name: string }>(
    'select owner, name from schema_migrations order by owner, version',
  );
  return rows.map((row) => `${row.owner}/${row.name}`);
}

function upgradeSuite(openDatabase: () => Promise<{ db: SqlDatabase; dispose(): Promise<void> }>) {
  const opened: Array<{ dispose(): Promise<void> }> = [];
  const open = async () => {
    const handle = await openDatabase();
    opened.push(handle);
    return handle.db;
  };
  afterEach(async () => {
    for (const handle of opened.splice(0)) await handle.dispose();
  });

  it("gives a fresh database every library's migrations once", async () => {
    const fresh = await open();
    expect((await migrate(fresh, ALL)).map((m) => m.id)).toEqual(ALL.map((m) => m.id));
    expect(await recorded(fresh)).toEqual(ALL.map((m) => m.id).sort());
    expect(await migrate(fresh, ALL)).toEqual([]);
    expect(await recorded(fresh)).toEqual(ALL.map((m) => m.id).sort());
  });

  it("makes each library's migration 0001 exactly release 0.1.0's layout", async () => {
    const baseline = await open();
    await migrate(
      baseline,
      ALL.filter((m) => m.version === 1 && !SINCE_RELEASE_010.has(m.owner)),
    );
    const release = await open();
    await createdByRelease010(release);
    expect(await layoutOf(baseline)).toEqual(await layoutOf(release));
  });

  it('recognises a database created by release 0.1.0: records every migration, keeps every row, ends in the new layout', async () => {
    const release = await open();
    await createdByRelease010(release);
    const tables = await tablesOf(release);
    const before = await rowsOf(release);
    expect(tables.filter((table) => before[table].length === 0)).toEqual([]);

    expect((await migrate(release, ALL)).map((m) => m.id)).toEqual(ALL.map((m) => m.id));
    expect(await recorded(release)).toEqual(ALL.map((m) => m.id).sort());
    // Every row kept, but the timers, which moved onto the job queue with the pending delivery's job
    // (collections/0002, payments/0002, webhooks/0003); the other tables added since start empty.
    const after = await rowsOf(release);
    // collections/0003 and 0004 add the list and amount columns, filled from each row's state; this fixture's state
    // has none of theirs.
    const listColumns = ['status', 'transaction_method', 'provider_code', 'created_at', 'currency', 'request_amount'];
    const views = after.collection_view.map((row) => JSON.parse(row) as Record<string, unknown>);
    expect(views.map((view) => listColumns.map((column) => view[column]))).toEqual([listColumns.map(() => null)]);
    after.collection_view = views.map((view) =>
      JSON.stringify(Object.fromEntries(Object.entries(view).filter(([column]) => !listColumns.includes(column)))),
    );
    before.collection_view = before.collection_view.map((row) => JSON.stringify(JSON.parse(row)));
    // payments/0004 adds opened_at, filled from each payment's state; this fixture's state has no opening instant.
    const payments = after.service_payment_view.map((row) => JSON.parse(row) as Record<string, unknown>);
    expect(payments.map((payment) => payment.opened_at)).toEqual([null]);
    after.service_payment_view = payments.map(({ opened_at: _, ...payment }) => JSON.stringify(payment));
    before.service_payment_view = before.service_payment_view.map((row) => JSON.stringify(JSON.parse(row)));
    // sandbox/0002 tells the Collection product's tokens from the Disbursement product's: the release's were all Collection's.
    const tokens = after.sandbox_momo_tokens.map((row) => JSON.parse(row) as Record<string, unknown>);
    expect(tokens.map((token) => token.product)).toEqual(before.sandbox_momo_tokens.map(() => 'collection'));
    after.sandbox_momo_tokens = tokens.map(({ product: _, ...token }) => JSON.stringify(token));
    before.sandbox_momo_tokens = before.sandbox_momo_tokens.map((row) => JSON.stringify(JSON.parse(row)));
    // merchants/0006 and 0007 add the payout settings (the approval threshold's default, no cap, no payouts URL);
    // webhooks/0005 the trace context and correlation id of a delivery's flow, unknown for the release's deliveries.
    const added = {
      merchants: { payout_approval_threshold: 5_000_000, payout_daily_cap: null, payouts_callback_url: null },
      webhook_deliveries: { traceparent: null, correlation_id: null },
    };
    for (const [table, columns] of Object.entries(added)) {
      const rows = after[table].map((row) => JSON.parse(row) as Record<string, unknown>);
      expect(
        rows.map((row) => Object.fromEntries(Object.keys(columns).map((column) => [column, row[column]]))),
      ).toEqual(before[table].map(() => columns));
      after[table] = rows.map((row) =>
        JSON.stringify(Object.fromEntries(Object.entries(row).filter(([column]) => !(column in columns)))),
      );
      before[table] = before[table].map((row) => JSON.stringify(JSON.parse(row)));
    }
    const moved = ['collection_timers', 'payment_timers'];
    expect(
      Object.fromEntries(tables.filter((table) => !moved.includes(table)).map((table) => [table, after[table]])),
    ).toEqual(
      Object.fromEntries(tables.filter((table) => !moved.includes(table)).map((table) => [table, before[table]])),
    );
    expect(moved.map((table) => after[table])).toEqual([[], []]);
    expect(
      await release.query(`select queue, key, lane, payload, due_at, run_at from jobs order by queue, key`),
    ).toEqual([
      {
        queue: 'callbacks',
        key: 'wh_0000000000000002',
        lane: 'acme.example',
        payload: null,
        due_at: new Date('2026-11-01T10:03:00Z'),
        run_at: new Date('2026-11-01T10:03:00Z'),
      },
      {
        queue: 'collection_timers',
        key: 'PG0000000000000000000000A1/status',
        lane: '',
        payload: { internalReference: 'PG0000000000000000000000A1', kind: 'status' },
        due_at: new Date('2026-11-01T10:01:05Z'),
        run_at: new Date('2026-11-01T10:01:05Z'),
      },
      {
        queue: 'payment_timers',
        key: 'PG0000000000000000000000A1/payment',
        lane: '',
        payload: { internalReference: 'PG0000000000000000000000A1', kind: 'payment' },
        due_at: new Date('2026-11-01T10:05:00Z'),
        run_at: new Date('2026-11-01T10:05:00Z'),
      },
    ]);
    expect(
      Object.entries(after).filter(([table, rows]) => !tables.includes(table) && table !== 'jobs' && rows.length > 0),
    ).toEqual([]);

    const fresh = await open();
    await migrate(fresh, ALL);
    expect(await layoutOf(release)).toEqual(await layoutOf(fresh));
    // Every library's migrations over a populated database: on PGlite beside a loaded CI, more than a minute.
  }, 120_000);

  it("puts on the job queue what release 0.1.0's pods still write during a rolling upgrade", async () => {
    const release = await open();
    await createdByRelease010(release);
    await migrate(release, ALL);
    // Release 0.1.0's own statements: a timer scheduled in each table, a callback queued, a transaction's callbacks
    // resent.
    for (const table of ['collection_timers', 'payment_timers']) {
      await release.query(
        `insert into ${table} (internal_reference, kind, due_at, fire_at) values ('PG0000000000000000000000B2', 'provider', $1, $1)
         on conflict (internal_reference, kind) do update set due_at = excluded.due_at, fire_at = excluded.fire_at`,
        ['2026-11-01T10:10:00Z'],
      );
    }
    await release.query(
      `insert into webhook_deliveries
         (webhook_id, merchant_id, internal_reference, sequence, event_name, awaits, target_url, target_host, body, state, last_error, next_attempt_at)
       values ('wh_0000000000000003', 'mer_0000000000000001', 'PG0000000000000000000000B2', 1, 'collection.completed', '{}',
               'https://acme.example/callbacks', 'acme.example', '{"status":"COMPLETED"}', 'pending', null, '2026-11-01T10:11:00Z')
       on conflict (webhook_id) do nothing`,
    );
    await release.query(
      `update webhook_deliveries set state = 'pending', attempts = 0, next_attempt_at = now()
       where merchant_id = $1 and internal_reference = $2 and state in ('delivered', 'abandoned', 'pending')`,
      ['mer_0000000000000001', 'PG0000000000000000000000A1'],
    );

    expect(await release.query('select * from collection_timers union all select * from payment_timers')).toEqual([]);
    expect(
      (await release.query<{ queue: string; key: string }>('select queue, key from jobs order by queue, key')).map(
        (job) => `${job.queue} ${job.key}`,
      ),
    ).toEqual([
      'callbacks wh_0000000000000001',
      'callbacks wh_0000000000000002',
      'callbacks wh_0000000000000003',
      'collection_timers PG0000000000000000000000A1/status',
      'collection_timers PG0000000000000000000000B2/provider',
      'payment_timers PG0000000000000000000000A1/payment',
      'payment_timers PG0000000000000000000000B2/provider',
    ]);
  });
}

describe('migrating on PGlite', () => {
  upgradeSuite(async () => {
    const db = await openSqlDatabase('pglite://memory');
    return { db, dispose: () => db.close() };
  });
});

describeWithService('postgres', 'migrating on PostgreSQL', (url) => {
  upgradeSuite(async () => {
    const schema = uniqueSchema('upgrade');
    const db = await openSqlDatabase(url, { schema });
    return {
      db,
      dispose: async () => {
        await db.query(`drop schema ${schema} cascade`);
        await db.close();
      },
    };
  });
});
