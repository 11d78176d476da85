import { storedEvent, type StoredEvent } from '@paygate/decider';
import type { EventStore, RecordedEvent } from '@paygate/event-store';
import type { EventBus, RunningConsumer } from '@paygate/messaging';
import type { SqlClient, SqlDatabase } from '@paygate/sql';

/** How a column's value is sent: `jsonb` values are serialised and cast, the rest go as they are. */
export type ColumnType = 'text' | 'integer' | 'bigint' | 'jsonb';

/**
 * A read model kept per stream: one row of `table` per stream of `streamPrefix` (keyed by
 * `key`), and the row's `revision` column holding the stream revision of the last event applied.
 * Declared, not written: the Projection running it owns the transaction, idempotency by stream
 * revision, the row that is missing, and the subscription.
 */
export interface StreamReadModel<Event, Row> {
  streamPrefix: string;
  /** The stream's own events, upcast (the context's event reader); anything else there, such as published integration events, changes nothing. */
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
  /** What is written with the row, in its transaction, when `event` changed it (a context's timers). */
  alongside?(tx: SqlClient, streamId: string, event: Event): Promise<void>;
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
 * into its row in memory and the row written once, with the stream revision it is brought to,
 * so redelivery (at least once) changes nothing.
 *
 * A row can be missing past its stream's first event only when the projection started late.
 * Then, after the rest of the page has committed, the stream is read and folded outside any
 * transaction and its events applied again: on PGlite the transaction holds the one
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
    return events.consumePages({ group: this.name, streamPrefixes: this.streamPrefixes }, (page) => this.applyPage(page));
  }

  apply(recorded: RecordedEvent): Promise<void> {
    return this.applyPage([recorded]);
  }

  async applyPage(page: RecordedEvent[]): Promise<void> {
    const runs = this.streamRuns(page);
    if (runs.length === 0) return;
    const unfolded = await this.sql.transaction(async (tx) => {
      const missing: StreamRun<unknown>[] = [];
      for (const run of runs) if (!(await applyRun(tx, run, undefined))) missing.push(run);
      return missing;
    });
    for (const run of unfolded) {
      const first = run.events[0].revision;
      let folded: unknown = null;
      for (const stored of await this.store.readStream(`${run.model.streamPrefix}${run.streamId}`, { maxCount: first })) {
        const own = run.model.read(storedEvent(stored));
        if (own) folded = run.model.evolve(folded, own);
      }
      await this.sql.transaction((tx) => applyRun(tx, run, folded));
    }
  }

  /** The page's events of this projection's read models, as one run per stream, in first-seen order. */
  private streamRuns(page: RecordedEvent[]): StreamRun<unknown>[] {
    const runs = new Map<string, StreamRun<unknown>>();
    for (const recorded of page) {
      const model = this.readModels.find((candidate) => recorded.streamName.startsWith(candidate.streamPrefix));
      const event = model?.read(storedEvent(recorded));
      if (!model || !event) continue;
      const run = runs.get(recorded.streamName) ?? { model, streamId: recorded.streamName.slice(model.streamPrefix.length), events: [] };
      run.events.push({ event, revision: recorded.revision });
      runs.set(recorded.streamName, run);
    }
    return [...runs.values()];
  }
}

/**
 * Applies a stream's events to its row: false, writing nothing, when the row is missing past the
 * stream's first event and `folded` (the earlier events' row) is not given yet. Events at or
 * below the row's revision were applied before; an event whose evolve gives null changes nothing.
 *
 * A run from the stream's first event, or from its earlier events folded, already knows the row
 * before it: it is folded without reading the row and written in one statement, which says the
 * revision the row had, so only the events past it write alongside (a page that comes again
 * writes nothing twice).
 */
async function applyRun<Event, Row>(tx: SqlClient, run: StreamRun<Event>, folded: Row | null | undefined): Promise<boolean> {
  const model = run.model as StreamReadModel<Event, Row>;
  const key = model.key(run.streamId, run.events[0].event);
  const before =
    run.events[0].revision === 0 ? { row: null, revision: -1 } : folded !== undefined ? { row: folded, revision: -1 } : await storedRow(tx, model, key);
  if (!before) return false;
  let { row, revision } = before;
  const changedBy: { event: Event; revision: number }[] = [];
  for (const applied of run.events) {
    if (applied.revision <= revision) continue;
    const after = model.evolve(row, applied.event);
    if (after === null) continue;
    row = after;
    revision = applied.revision;
    changedBy.push(applied);
  }
  if (changedBy.length === 0 || row === null) return true;
  const had = await upsert(tx, model, key, row, revision);
  for (const { event, revision: at } of changedBy) if (at > had) await model.alongside?.(tx, run.streamId, event);
  return true;
}

/** The stream's row and its revision, locked for this transaction; undefined when there is none. */
async function storedRow<Event, Row>(tx: SqlClient, model: StreamReadModel<Event, Row>, key: Record<string, string>) {
  const keyColumns = Object.keys(key);
  const [found] = await tx.query<Record<string, unknown>>(
    `select ${[...Object.keys(model.columns), 'revision'].join(', ')} from ${model.table} where ${keyColumns.map((column, i) => `${column} = $${i + 1}`).join(' and ')} for update`,
    Object.values(key),
  );
  return found ? { row: model.fromColumns(found), revision: Number(found.revision) } : undefined;
}

/** Writes the row at `revision`, never over a row already past it; returns the revision the row had (-1: none). */
async function upsert<Event, Row>(tx: SqlClient, model: StreamReadModel<Event, Row>, key: Record<string, string>, row: Row, revision: number): Promise<number> {
  const values = model.toColumns(row);
  const columns = Object.keys(model.columns);
  const keyColumns = Object.keys(key);
  const params: unknown[] = [
    ...Object.values(key),
    ...columns.map((column) => (model.columns[column] === 'jsonb' ? JSON.stringify(values[column]) : values[column])),
    revision,
  ];
  const placeholders = [
    ...keyColumns.map((_, i) => `$${i + 1}`),
    ...columns.map((column, i) => `$${keyColumns.length + i + 1}::${model.columns[column]}`),
    `$${params.length}`,
  ];
  // `had` reads the statement's snapshot, so it is the row before this write whatever order the two run in.
  const [written] = await tx.query<{ had: number | string }>(
    `with had as (select revision from ${model.table} where ${keyColumns.map((column, i) => `${column} = $${i + 1}`).join(' and ')}),
     written as (
       insert into ${model.table} (${[...keyColumns, ...columns, 'revision'].join(', ')}) values (${placeholders.join(', ')})
       on conflict (${keyColumns.join(', ')}) do update set ${[...columns, 'revision'].map((column) => `${column} = excluded.${column}`).join(', ')}
       where ${model.table}.revision < excluded.revision)
     select coalesce((select revision from had), -1) as had`,
    params,
  );
  return Number(written.had);
}
