import { AsyncLocalStorage } from 'node:async_hooks';
import { openSqlDatabase } from './open-sql-database';
import { openPglite } from './pglite-database';
import type { SqlDatabase } from './sql-database';

describe('PGlite adapter', () => {
  it('lets timers run between the statements of a caller that issues them back to back', async () => {
    // PGlite completes a statement without I/O, so without a yield a caller awaiting
    // statements in a loop keeps the event loop from ever reaching its timers.
    const db = await openSqlDatabase('pglite://memory');
    try {
      let timerFired = false;
      setTimeout(() => {
        timerFired = true;
      }, 0);
      let statementsBeforeTimer: number | undefined;
      for (let i = 0; i < 500 && statementsBeforeTimer === undefined; i++) {
        await db.query('select $1::int as n', [i]);
        if (timerFired) statementsBeforeTimer = i + 1;
      }
      expect(statementsBeforeTimer).toBeDefined();
      expect(statementsBeforeTimer).toBeLessThan(500);
    } finally {
      await db.close();
    }
  });

  it('still runs statements and transactions in the order they were called', async () => {
    const db = await openSqlDatabase('pglite://memory');
    try {
      await db.query('create table seq (id serial primary key, n int)');
      await Promise.all([
        ...Array.from({ length: 20 }, (_, n) => db.query('insert into seq (n) values ($1)', [n])),
        db.transaction(async (tx) => {
          await tx.query('insert into seq (n) values (100)');
          await tx.query('insert into seq (n) values (101)');
        }),
      ]);
      const rows = await db.query<{ n: number }>('select n from seq order by id');
      expect(rows.map((r) => r.n)).toEqual([...Array.from({ length: 20 }, (_, n) => n), 100, 101]);
    } finally {
      await db.close();
    }
  });

  it('runs a queryAhead before the statements still waiting, and those after it in call order', async () => {
    const db = await openSqlDatabase('pglite://memory');
    try {
      await db.query('create table seq (id serial primary key, n int)');
      const inserts = Array.from({ length: 10 }, (_, n) => db.query('insert into seq (n) values ($1)', [n]));
      const counted = db.queryAhead<{ count: number }>('select count(*)::int as count from seq');
      await Promise.all(inserts);
      // At most the insert already running when the read was asked for.
      expect((await counted)[0].count).toBeLessThanOrEqual(1);
      const rows = await db.query<{ n: number }>('select n from seq order by id');
      expect(rows.map((r) => r.n)).toEqual(Array.from({ length: 10 }, (_, n) => n));
    } finally {
      await db.close();
    }
  });
});

describe('PGlite adapter: transactions waiting together', () => {
  // A budget no statement here reaches, so the transactions queued together are one group whatever the machine's load.
  const open = () => openPglite(undefined, { turnBudgetMs: 60_000 });
  const inGroup = (db: SqlDatabase, n: number, fail?: string) =>
    db.transaction(async (tx) => {
      await tx.query('insert into paid (n) values ($1)', [n]);
      if (fail === 'throw') throw new Error(`transaction ${n} failed`);
      if (fail === 'sql') await tx.query('insert into paid (n) values (null)');
      const [row] = await tx.query<{ xact: string }>('select pg_current_xact_id()::text as xact');
      return row.xact;
    });

  it('commit in one transaction, each answered once it has committed', async () => {
    const db = await open();
    try {
      await db.query('create table paid (n int not null)');
      const xacts = await Promise.all([1, 2, 3, 4].map((n) => inGroup(db, n)));
      expect(new Set(xacts).size).toBe(1);
      expect((await db.query<{ n: number }>('select n from paid order by n')).map((r) => r.n)).toEqual([1, 2, 3, 4]);
    } finally {
      await db.close();
    }
  });

  it("run each caller's work in that caller's async context, though one group runs them all", async () => {
    const db = await open();
    const context = new AsyncLocalStorage<string>();
    try {
      await db.query('create table paid (n int not null)');
      const seen = await Promise.all(
        ['a', 'b', 'c'].map((caller, n) =>
          context.run(caller, () =>
            db.transaction(async (tx) => (await tx.query('insert into paid (n) values ($1)', [n]), context.getStore())),
          ),
        ),
      );
      expect(seen).toEqual(['a', 'b', 'c']);
    } finally {
      await db.close();
    }
  });

  it('a caller whose work fails, by its own error or a failed statement, loses only its own writes; the others commit', async () => {
    const db = await open();
    try {
      await db.query('create table paid (n int not null)');
      const results = await Promise.allSettled([
        inGroup(db, 1, 'throw'),
        inGroup(db, 2),
        inGroup(db, 3, 'sql'),
        inGroup(db, 4, 'throw'),
        inGroup(db, 5),
        inGroup(db, 6, 'throw'),
      ]);
      expect(results.map((r) => r.status)).toEqual([
        'rejected',
        'fulfilled',
        'rejected',
        'rejected',
        'fulfilled',
        'rejected',
      ]);
      expect((results[0] as PromiseRejectedResult).reason).toEqual(new Error('transaction 1 failed'));
      expect(String((results[2] as PromiseRejectedResult).reason)).toMatch(/null value/);
      expect((await db.query<{ n: number }>('select n from paid order by n')).map((r) => r.n)).toEqual([2, 5]);
    } finally {
      await db.close();
    }
  });

  it('statements called between transactions keep their place', async () => {
    const db = await open();
    try {
      await db.query('create table paid (n int not null)');
      const counted = [
        inGroup(db, 1),
        db.query<{ count: number }>('select count(*)::int as count from paid'),
        inGroup(db, 2),
      ];
      await Promise.all(counted);
      expect(await counted[1]).toEqual([{ count: 1 }]);
    } finally {
      await db.close();
    }
  });
});
