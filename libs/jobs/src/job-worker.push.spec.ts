/**
 * A worker runs jobs because it was told or knows when they are due, never because it polled:
 * every worker here has a tick of ten minutes, longer than any test.
 */
import { openSqlDatabase, type SqlClient, type SqlDatabase } from '@paygate/sql';
import {
  describeOnAllSqlEngines,
  describeWithService,
  eventually,
  silentLogger as log,
  uniqueSchema,
} from '@paygate/testing';
import { SqlJobQueue, type ClaimedJob } from './job-queue';
import { JobWorker } from './job-worker';

const NO_TICK_MS = 600_000;
let round = 0;

/** `db` counting the statements and transactions it runs. */
function counting(db: SqlDatabase) {
  const counts = { statements: 0 };
  const counted: SqlDatabase = Object.create(db, {
    query: { value: (text: string, params?: unknown[]) => (counts.statements++, db.query(text, params)) },
    transaction: {
      value: <T>(work: (tx: SqlClient) => Promise<T>) => (counts.statements++, db.transaction(work)),
    },
  });
  return { db: counted, counts };
}

describeOnAllSqlEngines('job worker, told rather than polling', 'jobs_push', (open) => {
  let db: SqlDatabase;
  let close: () => Promise<void>;
  let worker: JobWorker<ClaimedJob<null>> | undefined;
  let queue: SqlJobQueue<null>;
  const ran: Array<{ key: string; at: number }> = [];

  beforeAll(async () => {
    ({ db, close } = await open());
    await SqlJobQueue.migrate(db);
  });
  afterAll(() => close?.());
  beforeEach(() => {
    ran.length = 0;
    queue = new SqlJobQueue<null>(`push-${++round}`);
  });
  afterEach(() => worker?.stop());

  const start = (sql: SqlDatabase = db, leaseMs?: number) => {
    worker = new JobWorker({
      queue,
      sql,
      log,
      tickMs: NO_TICK_MS,
      leaseMs,
      run: async (job) => (ran.push({ key: job.key, at: Date.now() }), { done: true }),
    });
    worker.start();
  };
  const hasRun = (key: string) => () => (ran.some((run) => run.key === key) ? true : undefined);

  it('runs a job as soon as the transaction that scheduled it commits', async () => {
    start();
    await db.transaction((tx) => queue.schedule(tx, [{ key: 'now', runAt: new Date() }]));
    await eventually(hasRun('now'), 5_000, 'the job to run');
  });

  it('runs a job scheduled for later at its time', async () => {
    start();
    const runAt = new Date(Date.now() + 300);
    await queue.schedule(db, [{ key: 'later', runAt }]);
    await eventually(hasRun('later'), 5_000, 'the job to run');
    expect(ran[0].at).toBeGreaterThanOrEqual(runAt.getTime() - 5);
  });

  it('runs a job retried later at the time its retry gives', async () => {
    await queue.schedule(db, [{ key: 'retried', runAt: new Date(Date.now() - 1_000) }]);
    const [claimed] = await queue.claim(db, { limit: 1 });
    start();
    await queue.retryLater(db, [{ job: claimed, at: new Date(Date.now() + 200) }]);
    await eventually(hasRun('retried'), 5_000, 'the retried job to run');
  });

  it('runs a job whose claimer died once its lease runs out', async () => {
    await queue.schedule(db, [{ key: 'orphan', runAt: new Date(Date.now() - 1_000) }]);
    await queue.claim(db, { limit: 1, leaseMs: 300 });
    start();
    await eventually(hasRun('orphan'), 5_000, 'the orphaned job to run');
  });

  it('runs no statement when the lease of a job it has finished would have run out', async () => {
    const { db: counted, counts } = counting(db);
    start(counted, 600);
    await queue.schedule(db, [{ key: 'leased', runAt: new Date() }]);
    await eventually(hasRun('leased'), 5_000, 'the job to run');
    await eventually(async () => ((await queue.nextDueAt(db)) === undefined ? true : undefined), 5_000, 'its verdict');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const afterItsVerdict = counts.statements;
    // Past the lease its claim took, which the queue named as its next due time at that claim.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(counts.statements).toBe(afterItsVerdict);
  });

  it('runs no statement while nothing is due', async () => {
    const { db: counted, counts } = counting(db);
    start(counted);
    await eventually(() => (counts.statements >= 2 ? true : undefined), 5_000, 'the first look');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const afterFirstLook = counts.statements;
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(counts.statements).toBe(afterFirstLook);
  });
});

describeWithService('postgres', 'job worker told by another process on PostgreSQL', (url) => {
  const schema = uniqueSchema('jobs_push_x');
  let mine: SqlDatabase;
  let theirs: SqlDatabase;
  let worker: JobWorker<ClaimedJob<null>> | undefined;
  const queue = new SqlJobQueue<null>('push-across');
  const ran: string[] = [];

  beforeAll(async () => {
    mine = await openSqlDatabase(url, { schema });
    theirs = await openSqlDatabase(url, { schema });
    await SqlJobQueue.migrate(mine);
  });
  afterAll(async () => {
    await worker?.stop();
    await mine?.query(`drop schema if exists ${schema} cascade`);
    await Promise.all([mine?.close(), theirs?.close()]);
  });

  it('runs a job another process scheduled, at once', async () => {
    worker = new JobWorker({
      queue,
      sql: mine,
      log,
      tickMs: NO_TICK_MS,
      run: async (job) => (ran.push(job.key), { done: true }),
    });
    worker.start();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await queue.schedule(theirs, [{ key: 'from-elsewhere', runAt: new Date() }]);
    await eventually(() => (ran.includes('from-elsewhere') ? true : undefined), 5_000, 'the job to run');
  });
});
