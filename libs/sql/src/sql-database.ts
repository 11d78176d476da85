/**
 * The one SQL port: PostgreSQL (distributed), PGlite and SQLite (embedded). PostgreSQL and PGlite
 * run the same statements; SQLite speaks its own dialect. Parameters are `$1..$n` on every engine.
 */
export interface SqlClient {
  /** The SQL the engine speaks (PGlite is PostgreSQL's): the one thing an adapter chooses its statements by. */
  readonly dialect: 'postgres' | 'sqlite';
  query<Row = Record<string, unknown>>(text: string, params?: unknown[]): Promise<Row[]>;
}

export interface SqlDatabase extends SqlClient {
  /** Only for diagnostics and benchmarks, never to branch SQL: that is `dialect`. */
  readonly engine: 'pglite' | 'postgres' | 'sqlite';
  /**
   * True when the process has one connection and statements run one at a time (PGlite, SQLite): a
   * statement waits for every one queued before it, and each one delays all that follow, so
   * a reader's statements cost writers their whole duration.
   */
  readonly oneStatementAtATime: boolean;
  /**
   * Other processes may use the same database (PostgreSQL). An embedded one belongs to this
   * process alone (PGlite, SQLite), so a notification would reach nobody the process could not tell itself.
   */
  readonly shared: boolean;
  /**
   * A short read that others are waiting on (a subscription's next page). Where statements
   * queue for the one connection (PGlite, SQLite) it runs before the statements still waiting, after
   * the earlier reads of its kind; elsewhere it is `query`.
   */
  queryAhead<Row = Record<string, unknown>>(text: string, params?: unknown[]): Promise<Row[]>;
  /** Runs `work` in one transaction on one connection; rolls back when it throws. */
  transaction<T>(work: (tx: SqlClient) => Promise<T>): Promise<T>;
  /**
   * Runs `work` on a connection held for its whole duration (for session-level advisory
   * locks such as a relay's leadership). An embedded engine has a single connection, so it is that one.
   */
  withDedicatedConnection<T>(work: (client: SqlClient) => Promise<T>): Promise<T>;
  /**
   * Calls `onNotify` with the payload of every NOTIFY on `channel` once the transaction that sent
   * it commits, from any process on the same database; with `undefined` after the connection that
   * listens was lost and is back (notifications meanwhile are gone: look again). Resolves, once
   * listening, to a function that stops.
   */
  listen(channel: string, onNotify: (payload: string | undefined) => void): Promise<() => Promise<void>>;
  /** Answers when the database does (the readiness check); an embedded one is part of the process and always does. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
