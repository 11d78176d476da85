/**
 * What a running app has counted of its own work: SQL statements by kind, inbound HTTP requests (scrapes of /metrics
 * left out) and Kafka messages each way, read with `GET /metrics?name=…`, which serves only those families and reads
 * no gauge. The cost tables of the benches and the cost budget specs both read them here.
 */
import { KAFKA_MESSAGES_METRIC } from '@paygate/messaging';
import { SQL_STATEMENTS_METRIC } from '@paygate/sql';

export interface AppCounters {
  sql: Map<string, number>;
  /** Inbound requests but scrapes of /metrics. */
  http: number;
  produced: number;
  fetched: number;
}

const HTTP_METRIC = 'paygate_http_request_duration_seconds';
const QUERY = [SQL_STATEMENTS_METRIC, HTTP_METRIC, KAFKA_MESSAGES_METRIC].map((name) => `name=${name}`).join('&');
const SAMPLE = /^(\w+)(?:\{(.*)\})? (\S+)$/;
const LABEL = /(\w+)="((?:[^"\\]|\\.)*)"/g;

export const noCounters = (): AppCounters => ({ sql: new Map(), http: 0, produced: 0, fetched: 0 });

export function parseAppCounters(text: string): AppCounters {
  const counters = noCounters();
  for (const line of text.split('\n')) {
    const [, name, labelText = '', value] = SAMPLE.exec(line) ?? [];
    if (!name) continue;
    const labels = Object.fromEntries([...labelText.matchAll(LABEL)].map(([, label, text]) => [label, text]));
    const n = Number(value);
    if (name === SQL_STATEMENTS_METRIC) counters.sql.set(labels.kind, (counters.sql.get(labels.kind) ?? 0) + n);
    else if (name === `${HTTP_METRIC}_count` && labels.route !== '/metrics') counters.http += n;
    else if (name === KAFKA_MESSAGES_METRIC && labels.direction === 'produced') counters.produced += n;
    else if (name === KAFKA_MESSAGES_METRIC && labels.direction === 'fetched') counters.fetched += n;
  }
  return counters;
}

/** The app at `url`'s counters; undefined when it does not answer. */
export const readAppCounters = (url: string): Promise<AppCounters | undefined> =>
  fetch(`${url}/metrics?${QUERY}`).then(
    async (response) => (response.ok ? parseAppCounters(await response.text()) : undefined),
    () => undefined,
  );

/** Several apps' counters added up. */
export function addCounters(all: readonly AppCounters[]): AppCounters {
  const total = noCounters();
  for (const counters of all) {
    for (const [kind, n] of counters.sql) total.sql.set(kind, (total.sql.get(kind) ?? 0) + n);
    total.http += counters.http;
    total.produced += counters.produced;
    total.fetched += counters.fetched;
  }
  return total;
}

/** What grew from `before` to `after`; undefined when either reading is missing. */
export function countersSince(
  before: AppCounters | undefined,
  after: AppCounters | undefined,
): AppCounters | undefined {
  if (!after || !before) return undefined;
  return {
    sql: new Map([...after.sql].map(([kind, n]) => [kind, n - (before.sql.get(kind) ?? 0)])),
    http: after.http - before.http,
    produced: after.produced - before.produced,
    fetched: after.fetched - before.fetched,
  };
}

export const statementsIn = (counters: AppCounters): number => [...counters.sql.values()].reduce((a, b) => a + b, 0);
