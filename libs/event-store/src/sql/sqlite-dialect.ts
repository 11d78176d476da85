import type { ExpectedRevision } from '../event-store';
import type { AppendedRow, EventRow, EventStoreDialect } from './dialect';

/*
 * SQLite runs on one connection of one process, one transaction at a time (libs/sql's queue), so
 * a position assigned at append is already in commit order: a reader between transactions sees
 * every event up to the last position and none after it. The global order is the position
 * alone; a position's transaction part is always 0. A stream's revision is that of its last
 * event, found through the (stream_name, stream_revision) key: no stream table to keep. Tables:
 * migrations.ts.
 */

const COLUMNS = `global_position, 0 as transaction_id, stream_name, stream_revision, event_id, event_type,
  data, metadata, recorded_at`;

const EXPECTATION: Record<'no_stream' | 'any' | 'stream_exists', string> = {
  no_stream: 'stream.last is null',
  any: 'true',
  stream_exists: 'stream.last is not null',
};

/**
 * Appends the events of $2 (a JSON array of [id, type, data, metadata], data and metadata JSON
 * texts) to stream $1, numbered on from its last revision, when the expectation holds of it.
 */
const appendStatement = (expected: ExpectedRevision) =>
  `insert into es_events (stream_name, stream_revision, event_id, event_type, data, metadata)
   select $1, coalesce(stream.last, -1) + 1 + e.key, e.value ->> 0, e.value ->> 1, e.value ->> 2, e.value ->> 3
   from (select max(stream_revision) as last from es_events where stream_name = $1) stream, json_each($2) e
   where ${typeof expected === 'number' ? `stream.last = ${Number(expected)}` : EXPECTATION[expected]}
   order by e.key
   returning stream_revision, global_position, 0 as transaction_id`;

/** Events after position $1, the first $2. */
const LOG_PAGE = `select ${COLUMNS} from es_events where global_position > $1 order by global_position limit $2`;

export const SQLITE_DIALECT: EventStoreDialect = {
  async append(client, streamName, events, expected) {
    const rows = await client.query<AppendedRow>(appendStatement(expected), [
      streamName,
      JSON.stringify(events.map((e) => [e.id, e.type, e.data, e.metadata])),
    ]);
    // RETURNING answers a row per event, in no promised order.
    return rows.reduce<AppendedRow | undefined>(
      (last, row) => (last && Number(last.stream_revision) > Number(row.stream_revision) ? last : row),
      undefined,
    );
  },

  async currentRevision(client, streamName) {
    const [row] = await client.query<{ revision: number | null }>(
      'select max(stream_revision) as revision from es_events where stream_name = $1',
      [streamName],
    );
    return row.revision ?? 'no_stream';
  },

  readStream: (query, streamName, fromRevision, maxCount) =>
    query<EventRow>(
      `select ${COLUMNS} from es_events where stream_name = $1 and stream_revision >= $2
       order by stream_revision limit $3`,
      [streamName, fromRevision, maxCount],
    ),

  readAt: (query, places) =>
    query<EventRow>(
      `select ${COLUMNS} from es_events
       where (stream_name, stream_revision) in (select value ->> 0, value ->> 1 from json_each($1))`,
      [JSON.stringify(places.map((place) => [place.streamName, place.revision]))],
    ),

  readAll: (query, [, afterPosition], maxCount, prefixes) =>
    prefixes?.length
      ? query<EventRow>(
          `select ${COLUMNS} from es_events
           where global_position > $1
             and exists (select 1 from json_each($3) p where substr(stream_name, 1, length(p.value)) = p.value)
           order by global_position limit $2`,
          [Number(afterPosition), maxCount, JSON.stringify(prefixes)],
        )
      : query<EventRow>(LOG_PAGE, [Number(afterPosition), maxCount]),

  // Nothing is ever held back: what has committed is all there is.
  readLogPage: async (query, [, afterPosition], pageSize) => ({
    rows: await query<EventRow>(LOG_PAGE, [Number(afterPosition), pageSize]),
    heldBack: false,
  }),
};
