import { openSqlDatabase } from './open-sql-database';

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
