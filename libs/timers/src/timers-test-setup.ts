import { SqlJobQueue } from '@paygate/jobs';
import type { SqlDatabase } from '@paygate/sql';
import { describeOnAllSqlEngines, describeOnSqlEngines, type SqlEngineUnderTest } from '@paygate/testing';
import { LeasedTimers, timerTableStatements } from './leased-timers';

export type Kind = 'expiry' | 'poll';

export const past = (ms = 1_000) => new Date(Date.now() - ms);
export const future = (ms = 3_600_000) => new Date(Date.now() + ms);

export const KINDS: Record<Kind, true> = { expiry: true, poll: true };

/** Timers of a queue named `table`. */
export async function timerTable(db: SqlDatabase, table: string): Promise<LeasedTimers<Kind>> {
  await SqlJobQueue.migrate(db);
  return new LeasedTimers<Kind>(table, KINDS);
}

/** An hour, to subtract from a time in `jobs`: an interval on PostgreSQL, epoch ms on SQLite (libs/jobs). */
const AN_HOUR: Record<SqlDatabase['dialect'], string> = { postgres: `interval '1 hour'`, sqlite: '3600000' };

/** One database per engine, and an empty `test_timers` queue for each test. */
export interface TimersUnderTest {
  db: SqlDatabase;
  timers: LeasedTimers<Kind>;
  /** The queue's timers, by reference and kind. */
  rows(): Promise<{ internalReference: string; kind: string; dueAt: Date }[]>;
  /**
   * As if `claims` were made an hour ago, so their leases have run out: their rows' fire times and
   * leases move an hour back, and so do the claims as their holders know them (answered).
   */
  ageClaims<Claim extends { leaseUntil: Date }>(claims: Claim[]): Promise<Claim[]>;
}

function suiteOn(
  openDb: () => Promise<SqlEngineUnderTest>,
  suite: (t: TimersUnderTest) => void,
  { legacyTable }: { legacyTable: boolean },
): void {
  const t = {} as TimersUnderTest;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const opened = await openDb();
    close = opened.close;
    const db = opened.db;
    if (legacyTable) for (const statement of timerTableStatements('test_timers')) await db.query(statement);
    Object.assign(t, {
      db,
      timers: await timerTable(db, 'test_timers'),
      rows: async () =>
        (
          await db.query<{ internal_reference: string; kind: string; due_at: Date }>(
            `select payload->>'internalReference' as internal_reference, payload->>'kind' as kind, due_at from jobs where queue = 'test_timers' order by 1, 2`,
          )
        ).map((row) => ({ internalReference: row.internal_reference, kind: row.kind, dueAt: new Date(row.due_at) })),
      ageClaims: async <Claim extends { leaseUntil: Date }>(claims: Claim[]) => {
        await db.query(
          `update jobs set run_at = run_at - ${AN_HOUR[db.dialect]}, lease_until = lease_until - ${AN_HOUR[db.dialect]}
           where queue = 'test_timers' and lease_until is not null`,
        );
        return claims.map((claim) => ({ ...claim, leaseUntil: new Date(claim.leaseUntil.getTime() - 3_600_000) }));
      },
    });
  });
  beforeEach(() => t.db.query(`delete from jobs where queue = 'test_timers'`));
  afterAll(() => close?.());
  suite(t);
}

/** Runs `suite` on every engine: PGlite, SQLite and, when STORE_URL names one, PostgreSQL. */
export function onEveryEngine(title: string, suite: (t: TimersUnderTest) => void): void {
  describeOnAllSqlEngines(title, 'timers', (open) => suiteOn(open, suite, { legacyTable: false }));
}

/**
 * Runs `suite` with `test_timers` also the table an older release kept its timers in, as its owners' migrations
 * create one (timerTableStatements): on the engines that release ran on, PGlite and PostgreSQL.
 */
export function onEnginesOfOlderReleases(title: string, suite: (t: TimersUnderTest) => void): void {
  describeOnSqlEngines(title, 'timers', (open) => suiteOn(open, suite, { legacyTable: true }));
}
