import { currentLogContext, joinFlow, type Logger } from '@paygate/logging';
import type { SqlClient, SqlDatabase } from '@paygate/sql';
import { describeOnAllSqlEngines, eventually } from '@paygate/testing';
import { SqlJobQueue, type ClaimedJob } from './job-queue';
import { JobWorker } from './job-worker';
import type { JobVerdict } from './work-queue';

const past = (ms = 1_000) => new Date(Date.now() - ms);
const warnings: string[] = [];
const log: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: (message) => warnings.push(message),
  error: () => undefined,
  child: () => log,
};

/** `db`, whose statements fail while `down` is set, counting the transactions it runs. */
function watched(db: SqlDatabase) {
  const state = { down: false, transactions: 0 };
  const fail = () => Promise.reject(new Error('connection terminated'));
  const wrapped: SqlDatabase = Object.create(db, {
    query: { value: (text: string, params?: unknown[]) => (state.down ? fail() : db.query(text, params)) },
    transaction: {
      value: <T>(work: (tx: SqlClient) => Promise<T>) => {
        if (state.down) return fail();
        state.transactions++;
        return db.transaction(work);
      },
    },
  });
  return { db: wrapped, state };
}

describeOnAllSqlEngines('job worker', 'jobs_worker', (open) => {
  let db: SqlDatabase;
  let close: () => Promise<void>;
  let worker: JobWorker<ClaimedJob<null>> | undefined;
  let queue: SqlJobQueue<null>;
  let round = 0;

  beforeAll(async () => {
    ({ db, close } = await open());
    await SqlJobQueue.migrate(db);
  });
  afterAll(() => close?.());
  beforeEach(() => {
    warnings.length = 0;
    queue = new SqlJobQueue<null>(`worker-${++round}`);
  });
  afterEach(() => worker?.stop());

  const remaining = async () =>
    (await db.query<{ key: string }>('select key from jobs where queue = $1 order by key', [queue.name])).map(
      (row) => row.key,
    );
  const start = (
    sql: SqlDatabase,
    run: (job: ClaimedJob<null>) => Promise<JobVerdict>,
    options: { laneCap?: number; leaseMs?: number; tickMs?: number } = {},
  ) => {
    worker = new JobWorker({ queue, sql, run, tickMs: 10, log, ...options });
    worker.start();
    return worker;
  };

  it('settles the verdicts of jobs that finish together in one transaction, each by its own verdict', async () => {
    await queue.schedule(
      db,
      Array.from({ length: 20 }, (_, n) => ({ key: `job-${String(n).padStart(2, '0')}`, runAt: past() })),
    );
    const { db: counted, state } = watched(db);
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const runs: string[] = [];
    start(counted, async (job) => {
      runs.push(job.key);
      await answered;
      return Number(job.key.slice(4)) < 10
        ? { done: true }
        : { done: false, retryAt: new Date(Date.now() + 3_600_000) };
    });
    await eventually(() => (runs.length === 20 ? true : undefined), 15_000, 'every job to start');
    answer();
    await eventually(
      async () => ((await remaining()).length === 10 ? true : undefined),
      15_000,
      'the done jobs to be forgotten',
    );

    expect(await remaining()).toEqual(Array.from({ length: 10 }, (_, n) => `job-${10 + n}`));
    expect(state.transactions).toBe(1);
  });

  it('runs a job whose run threw again once its lease runs out, and logs it', async () => {
    await queue.schedule(db, [{ key: 'flaky', runAt: past() }]);
    let runs = 0;
    start(
      db,
      async () => {
        if (++runs === 1) throw new Error('receiver unreachable');
        return { done: true };
      },
      { leaseMs: 200 },
    );
    await eventually(async () => ((await remaining()).length === 0 ? true : undefined), 15_000, 'the job to be done');
    expect(runs).toBe(2);
    expect(warnings).toContain('job failed; will retry');
  });

  it('keeps a verdict it could not write and writes it once the database answers, without running the job again', async () => {
    await queue.schedule(db, [{ key: 'cut', runAt: past() }]);
    const { db: flaky, state } = watched(db);
    let runs = 0;
    start(flaky, async () => {
      runs++;
      state.down = true;
      return { done: true };
    });
    await eventually(
      () => (warnings.includes('cannot settle jobs; will try again') ? true : undefined),
      15_000,
      'the settle to fail',
    );
    state.down = false;
    await eventually(async () => ((await remaining()).length === 0 ? true : undefined), 15_000, 'the job to be done');
    expect(runs).toBe(1);
  });

  it("settles outside the runs' log contexts: what a batch logs joins no job's flow", async () => {
    await queue.schedule(db, [{ key: 'in-a-flow', runAt: past() }]);
    const flows: (string | undefined)[] = [];
    worker = new JobWorker({
      queue,
      sql: db,
      tickMs: 10,
      log,
      run: async () => (joinFlow('flow-of-one-job'), { done: true }),
      settled: async () => void flows.push(currentLogContext()?.correlationId),
    });
    worker.start();
    await eventually(() => (flows.length > 0 ? true : undefined), 15_000, 'the batch to be settled');
    expect(flows).toEqual([undefined]);
  });

  it('claims at once on wake(), without waiting for its tick', async () => {
    let claims = 0;
    const counted: SqlDatabase = Object.create(db, {
      query: { value: (text: string, params?: unknown[]) => db.query(text, params).finally(() => claims++) },
      transaction: { value: <T>(work: (tx: SqlClient) => Promise<T>) => db.transaction(work) },
    });
    const ran: string[] = [];
    const idle = start(counted, async (job) => (ran.push(job.key), { done: true }), { tickMs: 600_000 });
    await eventually(() => (claims > 0 ? true : undefined), 15_000, 'the first claim, which finds nothing');
    await queue.schedule(db, [{ key: 'woken', runAt: past() }]);
    idle.wake();
    await eventually(() => (ran.includes('woken') ? true : undefined), 5_000, 'the woken job to run');
  });

  it('runs no more jobs of one lane at once than its cap, while other lanes run', async () => {
    await queue.schedule(db, [
      ...Array.from({ length: 6 }, (_, n) => ({ key: `slow-${n}`, lane: 'slow.example', runAt: past(1_000 - n) })),
      { key: 'fast-0', lane: 'fast.example', runAt: past(1) },
    ]);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const running = new Map<string, number>();
    let most = 0;
    const ran: string[] = [];
    start(
      db,
      async (job) => {
        ran.push(job.key);
        running.set(job.lane, (running.get(job.lane) ?? 0) + 1);
        most = Math.max(most, running.get('slow.example') ?? 0);
        if (job.lane === 'slow.example') await released;
        running.set(job.lane, (running.get(job.lane) ?? 0) - 1);
        return { done: true };
      },
      { laneCap: 2 },
    );
    await eventually(() => (ran.includes('fast-0') ? true : undefined), 15_000, 'the other lane to run');
    release();
    await eventually(async () => ((await remaining()).length === 0 ? true : undefined), 15_000, 'every job to be done');
    expect(most).toBe(2);
  });
});
