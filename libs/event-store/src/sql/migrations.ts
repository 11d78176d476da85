import { defineMigrations, SQLITE_NOW } from '@paygate/sql';

/** The SQL event log (es_streams, es_events); the order it keeps is explained in each dialect (postgres-dialect.ts, sqlite-dialect.ts). */
export const EVENT_STORE_MIGRATIONS = defineMigrations('event-store', [
  {
    name: '0001_streams_and_events',
    statements: [
      `create table if not exists es_streams (
         stream_name text primary key,
         revision bigint not null
       )`,
      `create table if not exists es_events (
         global_position bigserial primary key,
         transaction_id xid8 not null default pg_current_xact_id(),
         stream_name text not null,
         stream_revision bigint not null,
         event_id uuid not null unique,
         event_type text not null,
         data jsonb not null,
         metadata jsonb not null,
         recorded_at timestamptz not null default now(),
         unique (stream_name, stream_revision)
       )`,
      `create index if not exists es_events_global_order on es_events (transaction_id, global_position)`,
    ],
    // The position is the global order (sqlite-dialect.ts), never reused; a stream's revision is its last event's.
    sqlite: [
      `create table es_events (
         global_position integer primary key autoincrement,
         stream_name text not null,
         stream_revision integer not null,
         event_id text not null unique,
         event_type text not null,
         data text not null,
         metadata text not null,
         recorded_at text not null default (${SQLITE_NOW}),
         unique (stream_name, stream_revision)
       )`,
    ],
  },
]);
