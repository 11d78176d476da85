import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { oneConnectionQueue, SAVEPOINT_SQL, type SavepointStep } from './one-connection-queue';
import type { SqlDatabase } from './sql-database';

/** The longest the adapter keeps the event loop in statements before it lets timers and I/O run. */
const TURN_BUDGET_MS = 5;
/** How long a statement waits for a lock another process holds on the file (a backup, the sqlite3 shell). */
const BUSY_TIMEOUT_MS = 5_000;

/**
 * Callers write PostgreSQL's `$1..$n`. SQLite reads `$1` as a parameter *named* "$1", numbered by
 * where it first appears (so `$2 ... $1` binds the wrong values), while `?1` is parameter 1.
 * Quoted strings, quoted identifiers and comments are kept as they are.
 */
function sqliteParameters(text: string): string {
  return text.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|--[^\n]*|\/\*[\s\S]*?\*\/|(?<![\w$])\$(\d+)/g, (match, n) =>
    n === undefined ? match : `?${n}`,
  );
}

/**
 * SQLite through Node's built-in `node:sqlite`: `file` is a path (its directory is created), or
 * undefined for a database in memory (tests). WAL with synchronous=FULL: every commit is on disk
 * before it is answered. A file belongs to one process, like PGlite's directory.
 *
 * INTEGER columns come back as JS numbers (node:sqlite's default): one beyond 2^53 throws rather
 * than lose digits. Rows are plain objects.
 */
export async function openSqlite(file: string | undefined): Promise<SqlDatabase> {
  if (file) mkdirSync(dirname(file), { recursive: true });
  const db = new DatabaseSync(file ?? ':memory:', { timeout: BUSY_TIMEOUT_MS, enableForeignKeyConstraints: true });
  db.exec('pragma journal_mode = wal; pragma synchronous = full');

  /*
   * Notifications, in process (the file is this process's alone): `pg_notify(channel, payload)`
   * in a statement sends one, and `current_schema()` names the one schema, so notifyInSchema and
   * listenInSchema (notifications.ts) serve here too. A notification is held until the transaction that sent
   * it commits (a statement outside one commits at once) and dropped with what rolls it back.
   */
  const listeners = new Map<string, Set<{ onNotify: (payload: string) => void }>>();
  let held: Array<[channel: string, payload: string]> = [];
  let heldAtSavepoint = 0;
  db.function('pg_notify', { deterministic: false }, (channel, payload) => {
    held.push([String(channel), String(payload)]);
    return null;
  });
  db.function('current_schema', { deterministic: true }, () => 'main');
  const drop = () => {
    held = [];
    heldAtSavepoint = 0;
  };
  const deliver = () => {
    const sent = held;
    drop();
    for (const [channel, payload] of sent)
      for (const listener of listeners.get(channel) ?? [])
        // Off this call stack: a listener that throws must not fail the commit that is already done.
        queueMicrotask(() => listener.onNotify(payload));
  };

  // Every statement is prepared once (their texts are fixed): parsing is most of a small one's cost.
  const statements = new Map<string, StatementSync>();
  const prepared = (text: string) => {
    let statement = statements.get(text);
    if (!statement) statements.set(text, (statement = db.prepare(sqliteParameters(text))));
    return statement;
  };
  const query = async <Row>(text: string, params: unknown[] = []) => {
    const before = held.length;
    let rows;
    try {
      rows = prepared(text).all(...(params as never[]));
    } catch (error) {
      // A failed statement is undone alone, and what it sent with it.
      held.length = before;
      throw error;
    }
    if (!db.isTransaction) deliver();
    return rows.map((row) => ({ ...row }) as Row);
  };
  const step = async (kind: SavepointStep) => {
    db.exec(SAVEPOINT_SQL[kind]);
    if (kind === 'rollback to savepoint') held.length = heldAtSavepoint;
    else heldAtSavepoint = held.length;
  };
  const queue = oneConnectionQueue(
    {
      dialect: 'sqlite',
      query,
      async transaction(work) {
        // IMMEDIATE takes the write lock at BEGIN: a transaction that reads, then writes, cannot fail half-way on it.
        db.exec('begin immediate');
        try {
          const result = await work({ query, step });
          db.exec('commit');
          deliver();
          return result;
        } catch (error) {
          // A failed statement can end the transaction on its own (a full disk, an I/O error): nothing to roll back then.
          if (db.isTransaction) db.exec('rollback');
          drop();
          throw error;
        }
      },
    },
    TURN_BUDGET_MS,
  );

  return {
    engine: 'sqlite',
    ...queue.database,
    // Nothing to lose: the listener is this process's own, so it is never called with `undefined`.
    listen: async (channel, onNotify) => {
      const listener = { onNotify };
      const set = listeners.get(channel) ?? new Set();
      listeners.set(channel, set.add(listener));
      return async () => void set.delete(listener);
    },
    // After every statement called before it.
    close: () => queue.after(async () => db.close()),
  };
}
