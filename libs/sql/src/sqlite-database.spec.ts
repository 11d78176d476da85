import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlDatabase } from './open-sql-database';
import type { SqlDatabase } from './sql-database';
import { openSqlite } from './sqlite-database';

describe('SQLite adapter', () => {
  let db: SqlDatabase;
  beforeEach(async () => {
    db = await openSqlDatabase('sqlite://memory');
    await db.query('create table paid (id integer primary key, n integer not null)');
  });
  afterEach(() => db.close());
  const paid = async () => (await db.query<{ n: number }>('select n from paid order by id')).map((row) => row.n);

  it('binds $1..$n by number, wherever they appear, and leaves them alone inside quotes', async () => {
    const [row] = await db.query('select $2 as second, $1 as first, $2 || $1 as both, \'$1\' as "$2"', ['a', 'b']);
    expect(row).toEqual({ second: 'b', first: 'a', both: 'ba', $2: '$1' });
  });

  it('answers rows as plain objects, INTEGER columns as numbers', async () => {
    await db.query('insert into paid (n) values ($1)', [2 ** 40]);
    const [row] = await db.query('select id, n from paid');
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(row).toEqual({ id: 1, n: 2 ** 40 });
  });

  it('rolls back a transaction whose work throws, and commits one that returns', async () => {
    await expect(
      db.transaction(async (tx) => {
        await tx.query('insert into paid (n) values (1)');
        throw new Error('failed half-way');
      }),
    ).rejects.toThrow('failed half-way');
    expect(
      await db.transaction(async (tx) => {
        await tx.query('insert into paid (n) values (2)');
        return 'done';
      }),
    ).toBe('done');
    expect(await paid()).toEqual([2]);
  });

  it('runs concurrent transactions one after the other, so none sees another half-done', async () => {
    await db.query('insert into paid (n) values (0)');
    const increment = () =>
      db.transaction(async (tx) => {
        const [{ n }] = await tx.query<{ n: number }>('select n from paid where id = 1');
        await new Promise((resolve) => setTimeout(resolve, 5));
        await tx.query('update paid set n = $1 where id = 1', [n + 1]);
      });
    await Promise.all(Array.from({ length: 5 }, increment));
    expect(await paid()).toEqual([5]);
  });

  it('keeps the writes of concurrent transactions that succeed when others among them fail', async () => {
    const attempt = (n: number, fail?: 'throw' | 'sql') =>
      db.transaction(async (tx) => {
        await tx.query('insert into paid (n) values ($1)', [n]);
        if (fail === 'throw') throw new Error(`transaction ${n} failed`);
        if (fail === 'sql') await tx.query('insert into paid (n) values (null)');
      });
    const results = await Promise.allSettled([
      attempt(1, 'throw'),
      attempt(2),
      attempt(3, 'sql'),
      attempt(4),
      attempt(5, 'throw'),
    ]);
    expect(results.map((result) => result.status)).toEqual([
      'rejected',
      'fulfilled',
      'rejected',
      'fulfilled',
      'rejected',
    ]);
    expect(String((results[2] as PromiseRejectedResult).reason)).toMatch(/NOT NULL constraint failed/);
    expect(await paid()).toEqual([2, 4]);
  });

  it('runs a queryAhead before the statements still waiting, and those after it in call order', async () => {
    const inserts = Array.from({ length: 10 }, (_, n) => db.query('insert into paid (n) values ($1)', [n]));
    const counted = db.queryAhead<{ count: number }>('select count(*) as count from paid');
    await Promise.all(inserts);
    // At most the insert already running when the read was asked for.
    expect((await counted)[0].count).toBeLessThanOrEqual(1);
    expect(await paid()).toEqual(Array.from({ length: 10 }, (_, n) => n));
  });

  it('lets timers run between the statements of a caller that issues them back to back', async () => {
    let timerFired = false;
    setTimeout(() => (timerFired = true), 0);
    let statementsBeforeTimer: number | undefined;
    for (let i = 0; i < 100_000 && statementsBeforeTimer === undefined; i++) {
      await db.query('select $1 as n', [i]);
      if (timerFired) statementsBeforeTimer = i + 1;
    }
    expect(statementsBeforeTimer).toBeDefined();
  });

  describe('notifications', () => {
    const heard: string[] = [];
    let stop: () => Promise<void>;
    beforeEach(async () => {
      heard.length = 0;
      stop = await db.listen('paid', (payload) => heard.push(payload!));
    });
    const notify = (client: Pick<SqlDatabase, 'query'>, payload: string) =>
      client.query(`select pg_notify('paid', $1)`, [payload]);
    const settled = () => new Promise((resolve) => setImmediate(resolve));

    it('reach a listener once the transaction that sent them commits, not before', async () => {
      await db.transaction(async (tx) => {
        await notify(tx, 'in a transaction');
        await settled();
        expect(heard).toEqual([]);
      });
      await notify(db, 'on its own');
      await settled();
      expect(heard).toEqual(['in a transaction', 'on its own']);
    });

    it('are dropped with what rolls them back: a transaction, a failed member of a group, a failed statement', async () => {
      const outcomes = await Promise.allSettled([
        db.transaction(async (tx) => {
          await notify(tx, 'rolled back');
          throw new Error('roll back');
        }),
        db.transaction(async (tx) => void (await notify(tx, 'kept'))),
        db.transaction(async (tx) => {
          await notify(tx, 'rolled back with its member');
          throw new Error('roll back');
        }),
        // pg_notify answers null: the notification is sent, then the statement fails.
        db.query(`insert into paid (n) values (pg_notify('paid', 'failed statement'))`),
      ]);
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'fulfilled', 'rejected', 'rejected']);
      await notify(db, 'after');
      await settled();
      expect(heard).toEqual(['kept', 'after']);
    });

    it('stop reaching a listener that stopped', async () => {
      await stop();
      await notify(db, 'unheard');
      await settled();
      expect(heard).toEqual([]);
    });
  });
});

describe('SQLite adapter on a file', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'paygate-sqlite-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps its rows across close and reopen, in WAL mode with every commit synced', async () => {
    const file = join(dir, 'nested', 'paygate.sqlite');
    const first = await openSqlDatabase(`sqlite://${file}`);
    await first.query('create table paid (n integer not null)');
    await first.transaction(async (tx) => void (await tx.query('insert into paid (n) values (1), (2)')));
    // Called before the close and not awaited: the close waits for it.
    const last = first.query('insert into paid (n) values (3)');
    await first.close();
    await last;

    const again = await openSqlite(file);
    try {
      expect((await again.query<{ n: number }>('select n from paid order by n')).map((row) => row.n)).toEqual([
        1, 2, 3,
      ]);
      expect(await again.query('pragma journal_mode')).toEqual([{ journal_mode: 'wal' }]);
      // 2 is FULL.
      expect(await again.query('pragma synchronous')).toEqual([{ synchronous: 2 }]);
    } finally {
      await again.close();
    }
  });
});
