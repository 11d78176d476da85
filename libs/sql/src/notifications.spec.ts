import { describeOnSqlEngines, describeWithService, eventually, uniqueSchema } from '@paygate/testing';
import { CommitAnnouncer, listenInSchema, notifyInSchema } from './notifications';
import { openSqlDatabase } from './open-sql-database';
import type { SqlClient, SqlDatabase } from './sql-database';

const notify = (db: Pick<SqlDatabase, 'query'>, payload: string) =>
  db.query(`select ${notifyInSchema('paygate_test', '$1::text')}`, [payload]);

describeOnSqlEngines('notifications', 'sql_notify', (open) => {
  let db: SqlDatabase;
  let close: () => Promise<void>;
  const heard: Array<string | undefined> = [];
  let stop: () => Promise<void>;

  beforeAll(async () => {
    ({ db, close } = await open());
    stop = await listenInSchema(db, 'paygate_test', (payload) => heard.push(payload));
  });
  afterAll(async () => {
    await stop?.();
    await close?.();
  });
  beforeEach(() => (heard.length = 0));

  it('delivers a notification once the transaction that sent it commits, not before', async () => {
    await db.transaction(async (tx) => {
      await notify(tx, 'due 1');
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(heard).toEqual([]);
    });
    await eventually(async () => heard.length > 0 || undefined, 5_000, 'the notification');
    expect(heard).toEqual(['due 1']);
  });

  it('delivers nothing from a transaction rolled back', async () => {
    await expect(
      db.transaction(async (tx) => {
        await notify(tx, 'never');
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    await notify(db, 'after');
    await eventually(async () => heard.length > 0 || undefined, 5_000, 'the notification after');
    expect(heard).toEqual(['after']);
  });
  it('announces commits after them: those made while one announcement is sent share the next', async () => {
    let sent = 0;
    let release!: () => void;
    const counting: SqlClient = {
      dialect: db.dialect,
      query: async <Row>(text: string, params?: unknown[]) => {
        sent++;
        if (sent === 1) await new Promise<void>((resolve) => (release = resolve));
        return db.query<Row>(text, params);
      },
    };
    const announcer = new CommitAnnouncer(counting, 'paygate_test', 'appended', (error) => {
      throw error;
    });
    announcer.announce();
    for (let i = 0; i < 5; i++) announcer.announce();
    expect(sent).toBe(1);
    release();
    await eventually(async () => (heard.length === 2 ? true : undefined), 5_000, 'two notifications');
    expect(sent).toBe(2);
    expect(heard).toEqual(['appended', 'appended']);
    announcer.announce();
    await eventually(async () => (heard.length === 3 ? true : undefined), 5_000, 'a third notification');
  });

  it('reports an announcement it could not send, and sends the next one', async () => {
    const errors: unknown[] = [];
    let failing = true;
    const flaky: SqlClient = {
      dialect: db.dialect,
      query: <Row>(text: string, params?: unknown[]) =>
        failing ? Promise.reject(new Error('connection lost')) : db.query<Row>(text, params),
    };
    const announcer = new CommitAnnouncer(flaky, 'paygate_test', 'later', (error) => errors.push(error));
    announcer.announce();
    await eventually(async () => (errors.length === 1 ? true : undefined), 5_000, 'the error reported');
    failing = false;
    announcer.announce();
    await eventually(async () => (heard.length === 1 ? true : undefined), 5_000, 'the next notification');
    expect(heard).toEqual(['later']);
  });
});

describeWithService('postgres', 'notifications across processes on PostgreSQL', (url) => {
  const schema = uniqueSchema('sql_notify_x');
  let listener: SqlDatabase;
  let other: SqlDatabase;
  let elsewhere: SqlDatabase;
  const heard: Array<string | undefined> = [];

  beforeAll(async () => {
    listener = await openSqlDatabase(url, { schema });
    other = await openSqlDatabase(url, { schema });
    elsewhere = await openSqlDatabase(url, { schema: `${schema}_b` });
    await listenInSchema(listener, 'paygate_test', (payload) => heard.push(payload));
    // Connecting, it told its listener to look (what came before it listened is not coming).
    expect(heard).toEqual([undefined]);
    heard.length = 0;
  });
  afterAll(async () => {
    await listener?.query(`drop schema if exists ${schema} cascade`);
    await listener?.query(`drop schema if exists ${schema}_b cascade`);
    await Promise.all([listener?.close(), other?.close(), elsewhere?.close()]);
  });

  it("hears another handle's notification in its schema, and none from another schema", async () => {
    await notify(elsewhere, 'not ours');
    await notify(other, 'ours');
    await eventually(async () => heard.includes('ours') || undefined, 5_000, 'the notification');
    expect(heard).toEqual(['ours']);
  });

  it('tells its listeners to look again when its connection was lost and is back', async () => {
    heard.length = 0;
    // The server ends the listening connection, as a restart or failover would.
    await other.query(
      `select pg_terminate_backend(pid) from pg_stat_activity
       where datname = current_database() and query ilike 'listen %' and pid <> pg_backend_pid()`,
    );
    await eventually(async () => heard.includes(undefined) || undefined, 10_000, 'the look-again call');
    await notify(other, 'after the loss');
    await eventually(async () => heard.includes('after the loss') || undefined, 5_000, 'a notification after');
  });
});
