import type { EventStore, RecordedEvent } from '@paygate/event-store';
import type { SqlDatabase } from '@paygate/sql';

/** A read-model table and what of it follows from events alone (compared by `--verify`). */
export interface ReadModelTable {
  table: string;
  /** Columns that identify a row. */
  key: string[];
  /** Columns derived from events; others (lease times, delivery attempts, a merchant's current URL) are left out. */
  derived: string[];
}

/**
 * A context's read model as `paygate projections rebuild` sees it: the context's own projection,
 * opened over a fresh database, fed every event of its streams in global order.
 */
export interface RebuildableReadModel {
  name: string;
  streamPrefixes: string[];
  /** Creates the projection's tables in `target` and returns what applies one event. */
  open(target: SqlDatabase, store: EventStore): Promise<(event: RecordedEvent) => Promise<void>>;
  tables: ReadModelTable[];
}

export interface RebuildResult {
  events: number;
  /** Position of the last event applied: the rebuild reflects the log up to here. */
  lastPosition: string | null;
}

const PAGE_SIZE = 500;

/**
 * Applies every event of the models' streams to their projections over `target`, in global
 * order, up to the log's end when it started (later events would make the comparison race the
 * live system).
 */
export async function rebuildReadModels(
  store: EventStore,
  target: SqlDatabase,
  models: readonly RebuildableReadModel[],
  options: { signal?: AbortSignal; onProgress?: (events: number) => void } = {},
): Promise<RebuildResult> {
  const handlers = await Promise.all(
    models.map(async (model) => ({ prefixes: model.streamPrefixes, apply: await model.open(target, store) })),
  );
  const streamPrefixes = [...new Set(models.flatMap((model) => model.streamPrefixes))];
  let after: string | null = null;
  let events = 0;
  for (;;) {
    if (options.signal?.aborted) throw new Error('interrupted; the rebuild is incomplete');
    const page = await store.readAll({ after, maxCount: PAGE_SIZE, streamPrefixes });
    for (const event of page) {
      for (const handler of handlers) {
        if (handler.prefixes.some((prefix) => event.streamName.startsWith(prefix))) await handler.apply(event);
      }
    }
    events += page.length;
    if (page.length > 0) after = page[page.length - 1].position;
    options.onProgress?.(events);
    if (page.length < PAGE_SIZE) return { events, lastPosition: after };
  }
}

export interface ReadModelDifference {
  table: string;
  /** The row's key values, joined with `/`. */
  key: string;
  problem: 'only in the live read model' | 'missing from the live read model' | 'differs';
  /** For `differs`: the derived columns whose values differ. */
  columns?: string[];
}

export interface TableComparison {
  table: string;
  liveRows: number;
  rebuiltRows: number;
  differences: ReadModelDifference[];
}

async function rowsByKey(
  sql: SqlDatabase,
  { table, key, derived }: ReadModelTable,
): Promise<Map<string, Record<string, unknown>>> {
  const columns = [...key, ...derived].join(', ');
  const rows = await sql.query<{ row: Record<string, unknown> }>(
    `select to_jsonb(t) as row from (select ${columns} from ${table}) t`,
  );
  return new Map(rows.map(({ row }) => [key.map((column) => String(row[column])).join('/'), row]));
}

/**
 * Compares each table's derived columns row by row; jsonb values compare by value (PostgreSQL normalises key order).
 */
export async function compareReadModels(
  live: SqlDatabase,
  rebuilt: SqlDatabase,
  models: readonly RebuildableReadModel[],
): Promise<TableComparison[]> {
  const comparisons: TableComparison[] = [];
  for (const table of models.flatMap((model) => model.tables)) {
    const [liveRows, rebuiltRows] = [await rowsByKey(live, table), await rowsByKey(rebuilt, table)];
    const differences: ReadModelDifference[] = [];
    for (const [key, row] of liveRows) {
      const other = rebuiltRows.get(key);
      if (!other) {
        differences.push({ table: table.table, key, problem: 'only in the live read model' });
        continue;
      }
      const columns = table.derived.filter((column) => JSON.stringify(row[column]) !== JSON.stringify(other[column]));
      if (columns.length) differences.push({ table: table.table, key, problem: 'differs', columns });
    }
    for (const key of rebuiltRows.keys())
      if (!liveRows.has(key))
        differences.push({ table: table.table, key, problem: 'missing from the live read model' });
    comparisons.push({ table: table.table, liveRows: liveRows.size, rebuiltRows: rebuiltRows.size, differences });
  }
  return comparisons;
}
