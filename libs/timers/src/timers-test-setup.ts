import type { SqlDatabase } from '@paygate/sql';
import { describeOnSqlEngines, type SqlEngineUnderTest } from '@paygate/testing';
import { LeasedTimers, timerTableStatements } from './leased-timers';

export type Kind = 'expiry' | 'poll';

export const past = (ms = 1_000) => new Date(Date.now() - ms);
export const future = (ms = 3_600_000) => new Date(Date.now() + ms);

/** A timer table as its owners' migrations create one (timerTableStatements). */
export async function timerTable(db: SqlDatabase, table: string): Promise<LeasedTimers<Kind>> {
  for (const statement of timerTableStatements(table)) await db.query(statement);
  return new LeasedTimers<Kind>(table);
}

/** One database per engine, and an empty `test_timers` table for each test. */
export interface TimersUnderTest {
  db: SqlDatabase;
  timers: LeasedTimers<Kind>;
  /** The table's rows, by reference and kind. */
  rows(): Promise<{ internalReference: string; kind: string; dueAt: Date }[]>;
  /** Moves every timer's fire time to the past, as if the leases of their claims had run out. */
  expireLeases(): Promise<void>;
}

function suiteOn(openDb: () => Promise<SqlEngineUnderTest>, suite: (t: TimersUnderTest) => void): void {
  const t = {} as TimersUnderTest;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const opened = await openDb();
    close = opened.close;
    const db = opened.db;
    Object.assign(t, {
      db,
      timers: await timerTable(db, 'test_timers'),
      rows: async () =>
        (
          await db.query<{ internal_reference: string; kind: string; due_at: Date }>(
            'select internal_reference, kind, due_at from test_timers order by internal_reference, kind',
          )
        ).map((row) => ({ internalReference: row.internal_reference, kind: row.kind, dueAt: new Date(row.due_at) })),
      expireLeases: async () => {
        await db.query(`update test_timers set fire_at = now() - interval '1 second'`);
      },
    });
  });
  beforeEach(() => t.db.query('delete from test_timers'));
  afterAll(() => close?.());
  suite(t);
}

/** Runs `suite` against PGlite and, when STORE_URL names one, PostgreSQL. */
export function onBothEngines(title: string, suite: (t: TimersUnderTest) => void): void {
  describeOnSqlEngines(title, 'timers', (open) => suiteOn(open, suite));
}
