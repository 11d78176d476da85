import type { SqlClient, SqlDatabase } from '@paygate/sql';
import type { EventPlace, ExpectedRevision } from '../event-store';

/** An event as a read brings it: PostgreSQL's jsonb arrives parsed, SQLite's JSON as text. */
export interface EventRow {
  global_position: string | number;
  transaction_id: string | number;
  stream_name: string;
  stream_revision: string | number;
  event_id: string;
  event_type: string;
  data: Record<string, unknown> | string;
  metadata: Record<string, unknown> | string;
  recorded_at: Date | string;
}

/** Where an append put its last event. */
export type AppendedRow = Pick<EventRow, 'stream_revision' | 'global_position' | 'transaction_id'>;

/** An event about to be written, its id chosen and its JSON encoded. */
export interface EncodedEvent {
  id: string;
  type: string;
  data: string;
  metadata: string;
}

/** A position taken apart: transaction id, then row sequence. */
export type PositionParts = [transaction: string, position: string];

type Query = SqlDatabase['query'];

/**
 * The statements of the SQL event store in one dialect (SqlDatabase.dialect): everything else
 * (positions, the tail this process keeps, live reads, subscriptions) is SqlEventStore's.
 */
export interface EventStoreDialect {
  /**
   * Appends `events` to `streamName` in one statement, so one implicit transaction (or part of the
   * caller's): every event is written or none. Undefined when `expected` is not met.
   */
  append(
    client: SqlClient,
    streamName: string,
    events: EncodedEvent[],
    expected: ExpectedRevision,
  ): Promise<AppendedRow | undefined>;
  currentRevision(client: SqlClient, streamName: string): Promise<number | 'no_stream'>;
  readStream(query: Query, streamName: string, fromRevision: number, maxCount: number): Promise<EventRow[]>;
  readAt(query: Query, places: readonly EventPlace[]): Promise<EventRow[]>;
  /** Events after `after` in the global order, the first `maxCount`, of streams starting with one of `prefixes` when given. */
  readAll(query: Query, after: PositionParts, maxCount: number, prefixes?: string[]): Promise<EventRow[]>;
  /**
   * A subscription's page after `after`, and whether committed events wait behind the horizon:
   * events the next read may bring though no append of this process or notification announces them.
   */
  readLogPage(query: Query, after: PositionParts, pageSize: number): Promise<{ rows: EventRow[]; heldBack: boolean }>;
}
