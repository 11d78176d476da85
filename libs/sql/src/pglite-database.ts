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

  const query = async <Row>(client: { query: typeof db.query }, text: string, params?: unknown[]) =>
    (await client.query<Row>(text, params)).rows;

  // PGlite runs a statement synchronously inside its promise, with no I/O to wait for, so
  // callers that await statements back to back (or a queue of them) hold the event loop in
  // microtasks: no timer or socket of the process runs until they all pause. A marker on the
  // event loop's next turn records when it last had one; once that is TURN_BUDGET_MS ago, new
  // statements and transactions wait for the next turn first (and so does everything issued
  // while some wait, so statements still reach PGlite in call order).
  let lastTurn = performance.now();
  let markerPending = false;
  let waiting = 0;
  const markTurn = () => {
    lastTurn = performance.now();
    markerPending = false;
  };
  const fair = async <T>(work: () => Promise<T>): Promise<T> => {
    if (!markerPending) {
      markerPending = true;
      setImmediate(markTurn);
    }
    if (waiting === 0 && performance.now() - lastTurn < TURN_BUDGET_MS) return work();
    waiting++;
    try {
      await nextTurn();
    } finally {
      waiting--;
    }
    return work();
  };
  const client: SqlClient = { query: (text, params) => fair(() => query(db, text, params)) };

  return {
    engine: 'pglite',
    oneStatementAtATime: true,
    query: client.query,
    transaction: (work) => fair(() => db.transaction((tx) => work({ query: (text, params) => query(tx, text, params) } as SqlClient))),
    withDedicatedConnection: (work) => work(client),
    close: () => db.close(),
  };
}
