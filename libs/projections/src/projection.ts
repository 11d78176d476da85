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

/** A row as it stands, or, for a stream whose row is missing, what folding its earlier events gave. */
type Before<Row> = { found: true; row: Row; revision: number } | { found: false; row: Row | null };

/**
 * Runs read models declared as StreamReadModel: applies each event of their streams in one
 * transaction with the stream revision it brings the row to, so redelivery (at least once)
 * changes nothing, and a consumer group of `name` feeds it.
 *
 * A row can be missing past its stream's first event only when the projection started late.
 * Then the stream is read and folded outside any transaction, and the event applied again: on
 * PGlite the transaction holds the one connection, so a read through the store inside it would
 * wait for the transaction, which waits for the read.
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
    return events.consume({ group: this.name, streamPrefixes: this.streamPrefixes }, (event) => this.apply(event));
  }

  async apply(recorded: RecordedEvent): Promise<void> {
    const model = this.readModels.find((candidate) => recorded.streamName.startsWith(candidate.streamPrefix));
    const event = model?.read(storedEvent(recorded));
    if (!model || !event) return;
    const streamId = recorded.streamName.slice(model.streamPrefix.length);
    const applied = await this.sql.transaction((tx) => this.applyIn(tx, model, streamId, event, recorded.revision, undefined));
    if (applied) return;
    const earlier = await this.store.readStream(recorded.streamName, { maxCount: recorded.revision });
    let folded: unknown = null;
    for (const stored of earlier) {
      const own = model.read(storedEvent(stored));
      if (own) folded = model.evolve(folded, own);
    }
    await this.sql.transaction((tx) => this.applyIn(tx, model, streamId, event, recorded.revision, folded));
  }

  /** False when the row is missing past the stream's first event and `folded` (the earlier events' row) is not given yet. */
  private async applyIn<Event, Row>(
    tx: SqlClient,
    model: StreamReadModel<Event, Row>,
    streamId: string,
    event: Event,
    revision: number,
    folded: Row | null | undefined,
  ): Promise<boolean> {
    const key = model.key(streamId, event);
    const before = await this.rowBefore(tx, model, key, revision, folded);
    if (!before) return false;
    if (before.found && revision <= before.revision) return true;
    const after = model.evolve(before.row, event);
    if (after === null) return true;
    await upsert(tx, model, key, after, revision);
    await model.alongside?.(tx, streamId, event);
    return true;
  }

  private async rowBefore<Event, Row>(
    tx: SqlClient,
    model: StreamReadModel<Event, Row>,
    key: Record<string, string>,
    revision: number,
    folded: Row | null | undefined,
  ): Promise<Before<Row> | undefined> {
    const keyColumns = Object.keys(key);
    const [found] = await tx.query<Record<string, unknown>>(
      `select ${[...Object.keys(model.columns), 'revision'].join(', ')} from ${model.table} where ${keyColumns.map((column, i) => `${column} = $${i + 1}`).join(' and ')} for update`,
      Object.values(key),
    );
    if (found) return { found: true, row: model.fromColumns(found), revision: Number(found.revision) };
    if (revision === 0) return { found: false, row: null };
    return folded === undefined ? undefined : { found: false, row: folded };
  }
}

/** Writes the row at `revision`; never over a row already past it. */
async function upsert<Event, Row>(tx: SqlClient, model: StreamReadModel<Event, Row>, key: Record<string, string>, row: Row, revision: number): Promise<void> {
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
  await tx.query(
    `insert into ${model.table} (${[...keyColumns, ...columns, 'revision'].join(', ')}) values (${placeholders.join(', ')})
     on conflict (${keyColumns.join(', ')}) do update set ${[...columns, 'revision'].map((column) => `${column} = excluded.${column}`).join(', ')}
     where ${model.table}.revision < excluded.revision`,
    params,
  );
}
