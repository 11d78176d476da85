import { storedEvent, type StoredEvent } from '@paygate/decider';
import type { EventStore, RecordedEvent } from '@paygate/event-store';
import type { EventBus, RunningConsumer } from '@paygate/messaging';
import type { SqlClient, SqlDatabase } from '@paygate/sql';
import { POSTGRES_DIALECT } from './postgres-dialect';
import type { ModelTable, ProjectionDialect } from './projection-dialect';
import { SQLITE_DIALECT } from './sqlite-dialect';

/**
 * How a column's value is sent: `jsonb` values are serialised and cast, the rest go as they are (a `timestamptz` as
 * an ISO 8601 instant).
 */
export type ColumnType = 'text' | 'integer' | 'bigint' | 'timestamptz' | 'jsonb';

/**
 * A read model kept per stream: one row of `table` per stream of `streamPrefix` (keyed by
 * `key`), and the row's `revision` column holding the stream revision of the last event applied.
 * Declared, not written: the Projection running it owns the transaction, idempotency by stream
 * revision, the row that is missing, and the subscription.
 */
export interface StreamReadModel<Event, Row> {
  streamPrefix: string;
  /**
   * The stream's own events, upcast (the context's event reader); anything else there, such as published integration
   * events, changes nothing.
   */
  read(stored: StoredEvent): Event | undefined;
  /** The row after `event` (pure); `row` is null before the stream's first event. Null leaves no row. */
  evolve(row: Row | null, event: Event): Row | null;
  table: string;
  /** The key columns' values of the stream's row, from the stream id (the name after the prefix) or its event. */
  key(streamId: string, event: Event): Record<string, string>;
  /** The other columns but `revision`, and their types. */
  columns: Readonly<Record<string, ColumnType>>;
  /** The row as the values of `columns`. */
  toColumns(row: Row): Record<string, unknown>;
  /** The row back from the values of `columns` as selected. */
  fromColumns(values: Record<string, unknown>): Row;
  /**
   * What is written with the page's rows, in their transaction: every change the page made to
   * this model's rows (a context's timers), in the order the events were applied. Called once per
   * page, so a context writes what they add up to in a statement or two, not one per event.
   */
  alongside?(tx: SqlClient, changes: readonly RowChange<Event>[]): Promise<void>;
}

/** An event that changed its stream's row, for `alongside`; `revision` is its place in its stream. */
export interface RowChange<Event> {
  streamId: string;
  event: Event;
  revision: number;
}

/** The events of one stream in a page, for one read model, in revision order. */
interface StreamRun<Event> {
  model: StreamReadModel<Event, unknown>;
  streamId: string;
  events: { event: Event; revision: number }[];
}

/**
 * Runs read models declared as StreamReadModel: a consumer group of `name` feeds it pages of
 * events, and each page is applied in one transaction. A stream's events in the page are folded
 * into its row in memory, and each model's rows are written together in one statement with the
 * stream revision each is brought to, so redelivery (at least once) changes nothing; what goes
 * alongside is written once per model and page.
 *
 * A row can be missing past its stream's first event only when the projection started late.
 * Then, after the rest of the page has committed, the stream is read and folded outside any
 * transaction and its events applied again: on an embedded engine the transaction holds the one
 * connection, so a read through the store inside it would wait for the transaction, which
 * waits for the read.
 */
export class Projection {
  readonly streamPrefixes: string[];

  constructor(
    /** The consumer group: its checkpoint keeps this name across releases. */
    readonly name: string,
    private readonly readModels: readonly StreamReadModel<unknown, unknown>[],
    protected readonly sql: SqlDatabase,
    private readonly store: EventStore,
  ) {
    this.streamPrefixes = readModels.map((model) => model.streamPrefix);
  }

  /** Subscribes the projection to its streams, from its consumer group's checkpoint. */
  start(events: EventBus): Promise<RunningConsumer> {
    return events.consumePages({ group: this.name, streamPrefixes: this.streamPrefixes }, (page) =>
      this.applyPage(page),
    );
  }

  apply(recorded: RecordedEvent): Promise<void> {
    return this.applyPage([recorded]);
  }

  async applyPage(page: RecordedEvent[]): Promise<void> {
    const runs = this.streamRuns(page);
    if (runs.length === 0) return;
    const unfolded = await this.sql.transaction(async (tx) => {
      const missing: StreamRun<unknown>[] = [];
      for (const model of this.readModels) {
        const own = runs.filter((run) => run.model === model);
        if (own.length > 0)
          missing.push(
            ...(await applyRuns(
              tx,
              model,
              own.map((run) => ({ run, folded: undefined })),
            )),
          );
      }
      return missing;
    });
    for (const run of unfolded) {
      const first = run.events[0].revision;
      let folded: unknown = null;
      for (const stored of await this.store.readStream(`${run.model.streamPrefix}${run.streamId}`, {
        maxCount: first,
      })) {
        const own = run.model.read(storedEvent(stored));
        if (own) folded = run.model.evolve(folded, own);
      }
      await this.sql.transaction((tx) => applyRuns(tx, run.model, [{ run, folded }]));
    }
  }

  /** The page's events of this projection's read models, as one run per stream, in first-seen order. */
  private streamRuns(page: RecordedEvent[]): StreamRun<unknown>[] {
    const runs = new Map<string, StreamRun<unknown>>();
    for (const recorded of page) {
      const model = this.readModels.find((candidate) => recorded.streamName.startsWith(candidate.streamPrefix));
      const event = model?.read(storedEvent(recorded));
      if (!model || !event) continue;
      const run = runs.get(recorded.streamName) ?? {
        model,
        streamId: recorded.streamName.slice(model.streamPrefix.length),
        events: [],
      };
      run.events.push({ event, revision: recorded.revision });
      runs.set(recorded.streamName, run);
    }
    return [...runs.values()];
  }
}

/** A row as it stands before a run: its value and the stream revision it was written at (-1: none). */
interface RowBefore<Row> {
  row: Row | null;
  revision: number;
}

/** A run folded into its row, to be written at `revision`. */
interface FoldedRun<Event, Row> {
  key: Record<string, string>;
  row: Row;
  revision: number;
  changedBy: { event: Event; revision: number }[];
  streamId: string;
}

/**
 * Applies one model's runs of a page: returns the runs whose row is missing past the stream's
 * first event while `folded` (the earlier events' row) is not given yet, writing nothing of
 * them. Events at or below the row's revision were applied before; an event whose evolve gives
 * null changes nothing.
 *
 * A run from the stream's first event, or from its earlier events folded, already knows the row
 * before it: it is folded without reading the row. The others' rows are read in one statement,
 * locked. The rows are written in one statement (on SQLite after one that reads their
 * revisions), which says the revision each had, so only the events past it write alongside (a
 * page that comes again writes nothing twice).
 */
async function applyRuns<Event, Row>(
  tx: SqlClient,
  model: StreamReadModel<Event, Row>,
  runs: readonly { run: StreamRun<unknown>; folded: Row | null | undefined }[],
): Promise<StreamRun<unknown>[]> {
  const keyed = runs.map(({ run, folded }) => ({
    run,
    folded,
    key: model.key(run.streamId, run.events[0].event as Event),
  }));
  const toRead = keyed
    .filter(({ run, folded }) => run.events[0].revision !== 0 && folded === undefined)
    .map(({ key }) => key);
  const stored = toRead.length > 0 ? await storedRows(tx, model, toRead) : new Map<string, RowBefore<Row>>();
  const missing: StreamRun<unknown>[] = [];
  const folded: FoldedRun<Event, Row>[] = [];
  for (const { run, folded: earlier, key } of keyed) {
    const before: RowBefore<Row> | undefined =
      run.events[0].revision === 0
        ? { row: null, revision: -1 }
        : earlier !== undefined
          ? { row: earlier, revision: -1 }
          : stored.get(keyText(key));
    if (!before) {
      missing.push(run);
      continue;
    }
    let { row, revision } = before;
    const changedBy: { event: Event; revision: number }[] = [];
    for (const applied of run.events as { event: Event; revision: number }[]) {
      if (applied.revision <= revision) continue;
      const after = model.evolve(row, applied.event);
      if (after === null) continue;
      row = after;
      revision = applied.revision;
      changedBy.push(applied);
    }
    if (changedBy.length > 0 && row !== null) folded.push({ key, row, revision, changedBy, streamId: run.streamId });
  }
  const changes: RowChange<Event>[] = [];
  for (const wave of onePerKey(folded)) {
    const had = await upsert(tx, model, wave);
    wave.forEach((written, i) => {
      for (const { event, revision: at } of written.changedBy)
        if (at > had[i]) changes.push({ streamId: written.streamId, event, revision: at });
    });
  }
  if (changes.length > 0) await model.alongside?.(tx, changes);
  return missing;
}

/** Each dialect's statements, by SqlClient.dialect: PostgreSQL's on PGlite and PostgreSQL, SQLite's on SQLite. */
const DIALECTS: Record<SqlClient['dialect'], ProjectionDialect> = {
  postgres: POSTGRES_DIALECT,
  sqlite: SQLITE_DIALECT,
};

const keyText = (key: Record<string, string>) => JSON.stringify(Object.values(key));

/**
 * Splits rows into statements that write each key at most once (two streams keyed alike are written one after the
 * other).
 */
function onePerKey<R extends { key: Record<string, string> }>(rows: R[]): R[][] {
  const waves: { keys: Set<string>; rows: R[] }[] = [];
  for (const row of rows) {
    const text = keyText(row.key);
    let wave = waves.find((candidate) => !candidate.keys.has(text));
    if (!wave) waves.push((wave = { keys: new Set(), rows: [] }));
    wave.keys.add(text);
    wave.rows.push(row);
  }
  return waves.map((wave) => wave.rows);
}

/** A model's table as its dialect's statements need it. */
const tableOf = (model: StreamReadModel<unknown, unknown>, keyColumns: readonly string[]): ModelTable => ({
  table: model.table,
  keyColumns,
  columns: model.columns,
});

/** The rows of these keys and their revisions, locked for this transaction; a key without a row is absent. */
async function storedRows<Event, Row>(
  tx: SqlClient,
  model: StreamReadModel<Event, Row>,
  keys: Record<string, string>[],
): Promise<Map<string, RowBefore<Row>>> {
  const keyColumns = Object.keys(keys[0]);
  const found = await DIALECTS[tx.dialect].storedRows(
    tx,
    tableOf(model as StreamReadModel<unknown, unknown>, keyColumns),
    keys.map((key) => keyColumns.map((column) => key[column])),
  );
  return new Map(
    found.map((values) => [
      keyText(Object.fromEntries(keyColumns.map((column) => [column, String(values[column])]))),
      { row: model.fromColumns(values), revision: Number(values.revision) },
    ]),
  );
}

/**
 * Writes each row at its revision, never over a row already past it; returns, row by row, the
 * revision the row had (-1: none). The rows' keys are distinct.
 */
function upsert<Event, Row>(
  tx: SqlClient,
  model: StreamReadModel<Event, Row>,
  rows: readonly FoldedRun<Event, Row>[],
): Promise<number[]> {
  const keyColumns = Object.keys(rows[0].key);
  const columns = Object.keys(model.columns);
  return DIALECTS[tx.dialect].upsert(
    tx,
    tableOf(model as StreamReadModel<unknown, unknown>, keyColumns),
    rows.map(({ key, row, revision }) => {
      const values = model.toColumns(row);
      return {
        key: keyColumns.map((column) => key[column]),
        values: columns.map((column) =>
          model.columns[column] === 'jsonb' ? JSON.stringify(values[column]) : values[column],
        ),
        revision,
      };
    }),
  );
}
