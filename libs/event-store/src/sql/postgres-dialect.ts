import type { ExpectedRevision } from '../event-store';
import type { AppendedRow, EventRow, EventStoreDialect } from './dialect';

/*
 * Global order without skips: a bigserial alone is assigned at insert time, so a subscriber
 * reading "position > checkpoint" could pass a row whose transaction commits later. Each row
 * therefore records its transaction id, the global order is (transaction_id, global_position),
 * and readers only see rows whose transaction is older than every transaction still running
 * (pg_snapshot_xmin). A row that becomes visible later always sorts after what was read.
 * Writers of one stream take a per-stream advisory lock before writing, so their transaction
 * ids (assigned at the first write) follow the stream's revision order. Tables: migrations.ts.
 */

// Columns are cast to text (bigint and xid8 exceed JS numbers), so ORDER BY clauses must name
// the table's columns (es_events.x), not these text aliases.
const COLUMNS = `es_events.global_position::text as global_position, es_events.transaction_id::text as transaction_id,
  stream_name, es_events.stream_revision::text as stream_revision, event_id::text as event_id, event_type,
  data, metadata, recorded_at`;

/**
 * Bumps the stream row according to the expectation; yields no row when it is not met. Every
 * variant reads from `locked`, so the stream's advisory lock is held before the statement
 * writes anything and therefore before PostgreSQL assigns its transaction id.
 */
function claimRevisions(expected: ExpectedRevision): string {
  if (expected === 'no_stream') {
    return `insert into es_streams (stream_name, revision) select $1, $2::bigint - 1 from locked
            on conflict (stream_name) do nothing returning revision`;
  }
  if (expected === 'any') {
    return `insert into es_streams as s (stream_name, revision) select $1, $2::bigint - 1 from locked
            on conflict (stream_name) do update set revision = s.revision + $2::bigint returning revision`;
  }
  const revisionMatches = expected === 'stream_exists' ? '' : `and revision = ${Number(expected)}::bigint`;
  return `update es_streams set revision = revision + $2::bigint from locked
          where stream_name = $1 ${revisionMatches} returning revision`;
}

const RETURNING =
  'stream_revision::text as stream_revision, global_position::text as global_position, transaction_id::text as transaction_id';

/** Appends events $3..$6 (arrays) to stream $1 claiming $2 revisions. */
const appendManyStatement = (expected: ExpectedRevision) =>
  `with locked as materialized (select pg_advisory_xact_lock(hashtext($1))),
   claimed as (${claimRevisions(expected)}),
   written as (
     insert into es_events (stream_name, stream_revision, event_id, event_type, data, metadata)
     select $1, claimed.revision - $2::bigint + e.ord, e.id, e.type, e.data::jsonb, e.metadata::jsonb
     from claimed, unnest($3::uuid[], $4::text[], $5::text[], $6::text[]) with ordinality as e(id, type, data, metadata, ord)
     order by e.ord
     returning stream_revision, global_position, transaction_id
   )
   select ${RETURNING} from written order by written.stream_revision desc limit 1`;

/**
 * The same for one event ($2 = 1), the usual append, with scalars: arrays cost PGlite more to
 * take apart and plan than the rest of the statement.
 */
const appendOneStatement = (expected: ExpectedRevision) =>
  `with locked as materialized (select pg_advisory_xact_lock(hashtext($1))),
   claimed as (${claimRevisions(expected)}),
   written as (
     insert into es_events (stream_name, stream_revision, event_id, event_type, data, metadata)
     select $1, claimed.revision, $3::uuid, $4::text, $5::text::jsonb, $6::text::jsonb from claimed
     returning stream_revision, global_position, transaction_id
   )
   select ${RETURNING} from written`;

/** PostgreSQL's and PGlite's statements. */
export const POSTGRES_DIALECT: EventStoreDialect = {
  async append(client, streamName, events, expected) {
    const [single] = events.length === 1 ? events : [];
    const [row] = await client.query<AppendedRow>(
      single ? appendOneStatement(expected) : appendManyStatement(expected),
      single
        ? [streamName, 1, single.id, single.type, single.data, single.metadata]
        : [
            streamName,
            events.length,
            events.map((e) => e.id),
            events.map((e) => e.type),
            events.map((e) => e.data),
            events.map((e) => e.metadata),
          ],
    );
    return row;
  },

  async currentRevision(client, streamName) {
    const rows = await client.query<{ revision: string }>(
      'select revision::text as revision from es_streams where stream_name = $1',
      [streamName],
    );
    return rows.length ? Number(rows[0].revision) : 'no_stream';
  },

  readStream: (query, streamName, fromRevision, maxCount) =>
    query<EventRow>(
      `select ${COLUMNS} from es_events where stream_name = $1 and es_events.stream_revision >= $2
       order by es_events.stream_revision limit $3`,
      [streamName, fromRevision, maxCount],
    ),

  readAt: (query, places) =>
    query<EventRow>(
      `select ${COLUMNS} from es_events
       where (stream_name, stream_revision) in (select * from unnest($1::text[], $2::bigint[]))`,
      [places.map((place) => place.streamName), places.map((place) => place.revision)],
    ),

  readAll(query, [afterTransaction, afterPosition], maxCount, prefixes) {
    const prefixFilter = prefixes?.length
      ? 'and exists (select 1 from unnest($4::text[]) as p(prefix) where starts_with(stream_name, p.prefix))'
      : '';
    return query<EventRow>(
      `select ${COLUMNS} from es_events
       where (es_events.transaction_id, es_events.global_position) > ($1::xid8, $2::bigint)
         and es_events.transaction_id < pg_snapshot_xmin(pg_current_snapshot())
         ${prefixFilter}
       order by es_events.transaction_id, es_events.global_position limit $3`,
      prefixes?.length
        ? [afterTransaction, afterPosition, maxCount, prefixes]
        : [afterTransaction, afterPosition, maxCount],
    );
  },

  /**
   * Events committed by transactions at or past the horizon are held back: a transaction that
   * began earlier and still runs (any schema's, in any process: the horizon is the server's)
   * holds them, and its commit notifies nobody here.
   */
  async readLogPage(query, [afterTransaction, afterPosition], pageSize) {
    const rows = await query<Partial<EventRow> & { held_back: boolean }>(
      `select held.back as held_back, page.* from
         (select exists (select 1 from es_events
                         where transaction_id >= pg_snapshot_xmin(pg_current_snapshot())) as back) held
         left join lateral (
           select ${COLUMNS}, es_events.transaction_id as order_transaction, es_events.global_position as order_position
           from es_events
           where (es_events.transaction_id, es_events.global_position) > ($1::xid8, $2::bigint)
             and es_events.transaction_id < pg_snapshot_xmin(pg_current_snapshot())
           order by es_events.transaction_id, es_events.global_position limit $3
         ) page on true
       order by page.order_transaction, page.order_position`,
      [afterTransaction, afterPosition, pageSize],
    );
    return {
      rows: rows.filter((row) => row.global_position != null) as EventRow[],
      heldBack: rows.length > 0 && rows[0].held_back === true,
    };
  },
};
