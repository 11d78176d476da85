import { AsyncResource } from 'node:async_hooks';
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { SqlClient, SqlDatabase } from './sql-database';

/** The savepoints a group of transactions takes, one for each member after the first. */
export type SavepointStep = 'savepoint' | 'release and savepoint' | 'rollback to savepoint';

/** How PGlite and SQLite say each step; the savepoint is named `member`. */
export const SAVEPOINT_SQL: Readonly<Record<SavepointStep, string>> = {
  savepoint: 'savepoint member',
  'release and savepoint': 'release savepoint member; savepoint member',
  'rollback to savepoint': 'rollback to savepoint member',
};

/** An open transaction of the one connection. */
export interface OneTransaction {
  query<Row>(text: string, params?: unknown[]): Promise<Row[]>;
  step(step: SavepointStep): Promise<void>;
}

/** An embedded engine's single connection, driven by the queue alone. */
export interface OneConnection {
  readonly dialect: SqlClient['dialect'];
  query<Row>(text: string, params?: unknown[]): Promise<Row[]>;
  /** Runs `work` in a transaction: committed once it returns, rolled back when it (or the commit) throws. */
  transaction<T>(work: (tx: OneTransaction) => Promise<T>): Promise<T>;
}

export interface OneConnectionQueue {
  /** What an embedded engine's SqlDatabase is, whichever the engine. */
  database: Omit<SqlDatabase, 'engine' | 'listen' | 'close'>;
  /** Runs `work` once every statement and transaction called before it has. */
  after<T>(work: () => Promise<T>): Promise<T>;
}

/*
 * An embedded engine (PGlite, SQLite) runs one statement at a time on one connection. The queue
 * orders statements and transactions in two lanes: `ahead` (short reads that others wait on, see
 * SqlDatabase.queryAhead) runs before `behind`, each in call order.
 *
 * Both engines run a statement synchronously inside its promise, with no I/O to wait for, so a
 * queue of statements (or callers awaiting them back to back) would hold the event loop in
 * microtasks: no timer or socket of the process would run until the queue drained. A marker on
 * the event loop's next turn records when it last had one; once that is the turn budget ago, the
 * queue waits for the next turn before its next statement.
 *
 * Transactions waiting together are grouped: one BEGIN and one COMMIT for the group, each
 * caller's work in a savepoint of its own, so a caller that fails rolls back only its own writes
 * and the others still commit. A commit costs more than a small write (PGlite's glue, SQLite's
 * sync to disk), and concurrent requests' writes pile up here while the single thread is busy:
 * the group takes the transactions queued next to each other, one after the other, for up to a
 * turn's budget of its own. A caller hears its result once the group has committed.
 */
export function oneConnectionQueue(connection: OneConnection, turnBudgetMs: number): OneConnectionQueue {
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
  /** A member's client refuses statements once its work is over: they would land in another's transaction. */
  const runMember = async (member: Member, tx: OneTransaction) => {
    let open = true;
    const client: SqlClient = {
      dialect: connection.dialect,
      query: <Row>(text: string, params?: unknown[]) =>
        open ? tx.query<Row>(text, params) : Promise.reject(new Error('the transaction is over')),
    };
    try {
      return await member.work(client);
    } finally {
      open = false;
    }
  };
  const runGroup = async (first: Member) => {
    const started = performance.now();
    const taken: Member[] = [first];
    const outcomes: Array<{ ok: boolean; value: unknown }> = [];
    let firstError: { error: unknown } | undefined;
    try {
      await connection.transaction(async (tx) => {
        // The first needs no savepoint: when it fails, the transaction is its alone to roll back.
        try {
          outcomes.push({ ok: true, value: await runMember(first, tx) });
        } catch (error) {
          firstError = { error };
          throw error;
        }
        // One savepoint, one statement per member: rolled back to, it stands again for the next;
        // kept, it is released and set anew. COMMIT releases the last.
        let member = nextMember(started);
        if (member) await tx.step('savepoint');
        while (member) {
          taken.push(member);
          let ok = true;
          try {
            outcomes.push({ ok, value: await runMember(member, tx) });
          } catch (error) {
            ok = false;
            outcomes.push({ ok, value: error });
          }
          member = nextMember(started);
          if (!ok) await tx.step('rollback to savepoint');
          else if (member) await tx.step('release and savepoint');
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

  const client: SqlClient = {
    dialect: connection.dialect,
    query: (text, params) => enqueue(behind, () => connection.query(text, params)),
  };
  return {
    database: {
      dialect: connection.dialect,
      oneStatementAtATime: true,
      shared: false,
      query: client.query,
      queryAhead: (text, params) => enqueue(ahead, () => connection.query(text, params)),
      transaction: <T>(work: (tx: SqlClient) => Promise<T>) =>
        // Bound to the caller's async context: a group runs it from another caller's, and what it
        // writes (an event's request and correlation ids) must be its own.
        new Promise<T>((resolve, reject) =>
          push(behind, { work: AsyncResource.bind(work), resolve: resolve as (value: unknown) => void, reject }),
        ),
      withDedicatedConnection: (work) => work(client),
      // Part of the process: it answers whenever the process does.
      ping: async () => undefined,
    },
    after: (work) => enqueue(behind, work),
  };
}
