import { mkdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { SqlClient, SqlDatabase } from './sql-database';

/** The longest the adapter keeps the event loop in statements before it lets timers and I/O run. */
const TURN_BUDGET_MS = 5;

/** `dataDir` undefined keeps the database in memory (tests). */
export async function openPglite(dataDir: string | undefined): Promise<SqlDatabase> {
  const { PGlite } = await import('@electric-sql/pglite');
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const db = new PGlite(dataDir);
  await db.waitReady;

  const query = async <Row>(client: { query: typeof db.query }, text: string, params?: unknown[]) => (await client.query<Row>(text, params)).rows;

  /*
   * PGlite runs one statement at a time. The adapter queues statements and transactions itself,
   * in two lanes: `ahead` (short reads that others wait on, see SqlDatabase.queryAhead) runs
   * before `behind`, each in call order.
   *
   * PGlite also runs a statement synchronously inside its promise, with no I/O to wait for, so
   * a queue of statements (or callers awaiting them back to back) would hold the event loop in
   * microtasks: no timer or socket of the process would run until the queue drained. A marker
   * on the event loop's next turn records when it last had one; once that is TURN_BUDGET_MS
   * ago, the queue waits for the next turn before its next statement.
   */
  const ahead: Array<() => Promise<void>> = [];
  const behind: Array<() => Promise<void>> = [];
  let running = false;
  let lastTurn = performance.now();
  let markerPending = false;
  const markTurn = () => {
    lastTurn = performance.now();
    markerPending = false;
  };
  const drain = async () => {
    running = true;
    try {
      for (let job = ahead.shift() ?? behind.shift(); job; job = ahead.shift() ?? behind.shift()) {
        if (!markerPending) {
          markerPending = true;
          setImmediate(markTurn);
        }
        if (performance.now() - lastTurn >= TURN_BUDGET_MS) {
          await nextTurn();
          lastTurn = performance.now();
        }
        await job();
      }
    } finally {
      running = false;
    }
  };
  const enqueue = <T>(lane: Array<() => Promise<void>>, work: () => Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      lane.push(() => work().then(resolve, reject));
      if (!running) void drain();
    });

  const client: SqlClient = { query: (text, params) => enqueue(behind, () => query(db, text, params)) };

  return {
    engine: 'pglite',
    oneStatementAtATime: true,
    query: client.query,
    queryAhead: (text, params) => enqueue(ahead, () => query(db, text, params)),
    transaction: (work) => enqueue(behind, () => db.transaction((tx) => work({ query: (text, params) => query(tx, text, params) } as SqlClient))),
    withDedicatedConnection: (work) => work(client),
    close: () => db.close(),
  };
}
