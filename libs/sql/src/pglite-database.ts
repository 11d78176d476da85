import { AsyncResource } from 'node:async_hooks';
import { mkdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Transaction } from '@electric-sql/pglite';
import type { SqlClient, SqlDatabase } from './sql-database';

export interface PgliteOptions {
  /** The longest the adapter keeps the event loop in statements before it lets timers and I/O run; default 5 ms. */
  turnBudgetMs?: number;
}

/** `dataDir` undefined keeps the database in memory (tests). */
export async function openPglite(
  dataDir: string | undefined,
  { turnBudgetMs = 5 }: PgliteOptions = {},
): Promise<SqlDatabase> {
  const { PGlite } = await import('@electric-sql/pglite');
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const db = new PGlite(dataDir);
  await db.waitReady;

  const query = async <Row>(client: { query: typeof db.query }, text: string, params?: unknown[]) =>
    (await client.query<Row>(text, params)).rows;

  /*
   * PGlite runs one statement at a time. The adapter queues statements and transactions itself,
   * in two lanes: `ahead` (short reads that others wait on, see SqlDatabase.queryAhead) runs
   * before `behind`, each in call order.
   *
   * PGlite also runs a statement synchronously inside its promise, with no I/O to wait for, so
   * a queue of statements (or callers awaiting them back to back) would hold the event loop in
   * microtasks: no timer or socket of the process would run until the queue drained. A marker
   * on the event loop's next turn records when it last had one; once that is the turn budget
   * ago, the queue waits for the next turn before its next statement.
   *
   * Transactions waiting together are grouped: one BEGIN and one COMMIT for the group, each
   * caller's work in a savepoint of its own, so a caller that fails rolls back only its own
   * writes and the others still commit. A commit costs PGlite more than a small write, and
   * concurrent requests' writes pile up here while the single thread is busy: the group takes
   * the transactions queued next to each other, one after the other, for up to a turn's budget
   * of its own. A caller hears its result once the group has committed.
   */
  type Statement = { run: () => Promise<void> };
  type Member = {
    work: (tx: SqlClient) => Promise<unknown>;
    resolve: (value: unknown) => void;
    reject: (error: unknown) => void;
  };
  type Job = Statement | Member;
  const ahead: Job[] = [];
  const behind: Job[] = [];
  let running = false;
  let lastTurn = performance.now();
  let markerPending = false;
  const markTurn = () => {
    lastTurn = performance.now();
    markerPending = false;
  };
  const clientOf = (tx: Transaction): SqlClient => ({ query: (text, params) => query(tx, text, params) }) as SqlClient;
  const runGroup = async (first: Member) => {
    const started = performance.now();
    const taken: Member[] = [first];
    const outcomes: Array<{ ok: boolean; value: unknown }> = [];
    let firstError: { error: unknown } | undefined;
    try {
      await db.transaction(async (tx) => {
        const client = clientOf(tx);
        // The first needs no savepoint: when it fails, the transaction is its alone to roll back.
        try {
          outcomes.push({ ok: true, value: await first.work(client) });
        } catch (error) {
          firstError = { error };
          throw error;
        }
        // One savepoint, one statement per member: rolled back to, it stands again for the next;
        // kept, it is released and set anew. COMMIT releases the last.
        let member = nextMember(started);
        if (member) await tx.exec('savepoint member');
        while (member) {
          taken.push(member);
          let ok = true;
          try {
            outcomes.push({ ok, value: await member.work(client) });
          } catch (error) {
            ok = false;
            outcomes.push({ ok, value: error });
          }
          member = nextMember(started);
          if (!ok) await tx.exec('rollback to savepoint member');
          else if (member) await tx.exec('release savepoint member; savepoint member');
        }
      });
    } catch (error) {
      if (firstError) return first.reject(firstError.error);
      // BEGIN, a savepoint or COMMIT failed: nothing of the group was written.
      for (const member of taken) member.reject(error);
      return;
    }
    taken.forEach((member, i) => (outcomes[i].ok ? member.resolve : member.reject)(outcomes[i].value));
  };
  /** The next queued transaction, when it waits right behind the group and the group is within a turn's budget. */
  const nextMember = (groupStarted: number): Member | undefined => {
    const next = behind[0];
    if (ahead.length > 0 || !next || !('work' in next) || performance.now() - groupStarted >= turnBudgetMs)
      return undefined;
    behind.shift();
    return next;
  };
  const drain = async () => {
    running = true;
    try {
      for (let job = ahead.shift() ?? behind.shift(); job; job = ahead.shift() ?? behind.shift()) {
        if (!markerPending) {
          markerPending = true;
          setImmediate(markTurn);
        }
        if (performance.now() - lastTurn >= turnBudgetMs) {
          await nextTurn();
          lastTurn = performance.now();
        }
        await ('work' in job ? runGroup(job) : job.run());
      }
    } finally {
      running = false;
    }
  };
  const push = (lane: Job[], job: Job) => {
    lane.push(job);
    if (!running) void drain();
  };
  const enqueue = <T>(lane: Job[], work: () => Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => push(lane, { run: () => work().then(resolve, reject) }));

  const client: SqlClient = { query: (text, params) => enqueue(behind, () => query(db, text, params)) };

  return {
    engine: 'pglite',
    oneStatementAtATime: true,
    shared: false,
    query: client.query,
    queryAhead: (text, params) => enqueue(ahead, () => query(db, text, params)),
    transaction: <T>(work: (tx: SqlClient) => Promise<T>) =>
      // Bound to the caller's async context: a group runs it from another caller's, and what it
      // writes (an event's request and correlation ids) must be its own.
      new Promise<T>((resolve, reject) =>
        push(behind, { work: AsyncResource.bind(work), resolve: resolve as (value: unknown) => void, reject }),
      ),
    withDedicatedConnection: (work) => work(client),
    // Delivered in this process after the commit; the one connection is never lost.
    listen: async (channel, onNotify) => {
      const stop = await db.listen(channel, onNotify);
      return () => stop();
    },
    ping: async () => undefined,
    close: () => db.close(),
  };
}
