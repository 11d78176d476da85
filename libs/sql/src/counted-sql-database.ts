import type { Metrics } from '@paygate/metrics';
import type { SqlClient, SqlDatabase } from './sql-database';

/**
 * What a statement works on, named by the tables it touches: the rows of a lifecycle's cost table
 * (docs/architecture.md) and the budget the cost specs hold Paygate to. `transaction` is one per
 * `transaction()` call, for its BEGIN and COMMIT.
 */
export type StatementKind =
  | 'append'
  | 'log-read'
  | 'job-queue'
  | 'projection'
  | 'reference'
  | 'webhooks'
  | 'checkpoint'
  | 'merchants'
  | 'rate-limit'
  | 'sandbox'
  | 'transaction'
  | 'notify'
  | 'other';

/** First match wins: an append also names es_streams, a claim of deliveries names its lock. */
const KINDS: ReadonlyArray<readonly [RegExp, StatementKind]> = [
  [/^select pg_notify\(/, 'notify'],
  [/\binsert into es_events\b/, 'append'],
  [/\bes_(events|streams)\b/, 'log-read'],
  [/\bjobs\b/, 'job-queue'],
  [/\bwebhook_|paygate-webhook/, 'webhooks'],
  [/\bmessaging_checkpoints\b/, 'checkpoint'],
  [/\bsandbox_/, 'sandbox'],
  [/\bcollection_references\b/, 'reference'],
  [/\b(collection_view|service_payment_view|wallet_balances|tx_rows)\b/, 'projection'],
  [/\bmerchants\b/, 'merchants'],
  [/\brate_limit_buckets\b/, 'rate-limit'],
];

/** The kind of a statement by its text (statements are fixed texts, so the answer is kept per text). */
export function statementKind(text: string): StatementKind {
  return KINDS.find(([tables]) => tables.test(text))?.[1] ?? 'other';
}

export const SQL_STATEMENTS_METRIC = 'paygate_sql_statements_total';

/**
 * `db` with every statement counted in `paygate_sql_statements_total{kind}`: the count a cost
 * budget is held to, where a duration would depend on the machine. Counted when issued, so a
 * statement that fails counts too.
 */
export function countStatements(db: SqlDatabase, metrics: Metrics): SqlDatabase {
  const statements = metrics.counter({
    name: SQL_STATEMENTS_METRIC,
    help: 'SQL statements issued by this process, by what they work on (append, log-read, job-queue, projection, …).',
    labelNames: ['kind'],
  });
  const labels = new Map<string, { kind: StatementKind }>();
  const count = (text: string) => {
    let label = labels.get(text);
    if (!label) {
      label = { kind: statementKind(text) };
      labels.set(text, label);
    }
    statements.inc(label);
  };
  const counted = (client: SqlClient): SqlClient => ({
    dialect: client.dialect,
    query: (text, params) => {
      count(text);
      return client.query(text, params);
    },
  });
  const TRANSACTION = { kind: 'transaction' } as const;
  return {
    engine: db.engine,
    dialect: db.dialect,
    oneStatementAtATime: db.oneStatementAtATime,
    shared: db.shared,
    query: (text, params) => {
      count(text);
      return db.query(text, params);
    },
    queryAhead: (text, params) => {
      count(text);
      return db.queryAhead(text, params);
    },
    transaction: (work) => {
      statements.inc(TRANSACTION);
      return db.transaction((tx) => work(counted(tx)));
    },
    withDedicatedConnection: (work) => db.withDedicatedConnection((client) => work(counted(client))),
    listen: (channel, onNotify) => db.listen(channel, onNotify),
    ping: () => db.ping(),
    close: () => db.close(),
  };
}
