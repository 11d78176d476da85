import { defineMigrations, SQLITE_NOW } from '@paygate/sql';
import { timerAdoptionStatements, timerTableStatements } from '@paygate/timers';

/**
 * The collections context's tables: the merchant_reference reservations (ReferenceRegistry), the
 * read model (CollectionProjection) and the durable timers (COLLECTION_TIMERS). `created_at` is the
 * initiatedAt instant as text: always `toISOString()`'s form, so it sorts as the instants do.
 *
 * SQLite's schema starts at this release: its form of 0001 creates the tables as the later migrations leave
 * them, and theirs have nothing left to do (no older rows to fill, no timer table to move).
 */

/** The indexes GET /v1/collections lists by (0003), newest first, with a filter and without. */
const LIST_INDEXES = [
  `create index if not exists collection_view_newest
    on collection_view (merchant_id, created_at desc, internal_reference desc)`,
  ...['status', 'provider_code', 'provider_code, status', 'transaction_method', 'transaction_method, status'].map(
    (filter) =>
      `create index if not exists collection_view_newest_by_${filter.replace(', ', '_')}
        on collection_view (merchant_id, ${filter}, created_at desc, internal_reference desc)`,
  ),
];
export const COLLECTIONS_MIGRATIONS = defineMigrations('collections', [
  {
    name: '0001_references_view_and_timers',
    statements: [
      `create table if not exists collection_references (
        merchant_id text not null,
        merchant_reference text not null,
        id bigserial unique,
        internal_reference text not null unique,
        request_hash text not null,
        created_at timestamptz not null default now(),
        primary key (merchant_id, merchant_reference)
      )`,
      `create table if not exists collection_view (
        internal_reference text primary key,
        merchant_id text not null,
        merchant_reference text not null,
        revision integer not null,
        state jsonb not null,
        unique (merchant_id, merchant_reference)
      )`,
      ...timerTableStatements('collection_timers'),
    ],
    sqlite: [
      `create table collection_references (
        merchant_id text not null,
        merchant_reference text not null,
        id integer primary key autoincrement,
        internal_reference text not null unique,
        request_hash text not null,
        created_at text not null default (${SQLITE_NOW}),
        unique (merchant_id, merchant_reference)
      )`,
      `create table collection_view (
        internal_reference text primary key,
        merchant_id text not null,
        merchant_reference text not null,
        revision integer not null,
        state text not null,
        status text,
        transaction_method text,
        provider_code text,
        created_at text,
        currency text,
        request_amount integer,
        unique (merchant_id, merchant_reference)
      )`,
      ...LIST_INDEXES,
    ],
  },
  // The timers an older release left in collection_timers, onto the job queue: needs the `jobs` migrations first.
  { name: '0002_timers_onto_job_queue', statements: timerAdoptionStatements('collection_timers'), sqlite: [] },
  // GET /v1/collections lists and filters without reading `state`, newest first. Each filter has an index that
  // ends in the list's order, with status and without, so a filter that matches few rows or none reads only them.
  {
    name: '0003_view_list_columns',
    statements: [
      `alter table collection_view
        add column if not exists status text,
        add column if not exists transaction_method text,
        add column if not exists provider_code text,
        add column if not exists created_at text`,
      `update collection_view set
        status = state->>'status',
        transaction_method = state->'initiated'->>'transactionMethod',
        provider_code = state->'initiated'->>'providerCode',
        created_at = state->'initiated'->>'initiatedAt'
       where created_at is null`,
      ...LIST_INDEXES,
    ],
    sqlite: [],
  },
  // The dashboard's overview counts and sums a merchant's collections by day without reading `state`.
  {
    name: '0004_view_amount_columns',
    statements: [
      `alter table collection_view
        add column if not exists currency text,
        add column if not exists request_amount bigint`,
      `update collection_view set
        currency = state->'initiated'->>'currency',
        request_amount = (state->'initiated'->>'requestAmount')::bigint
       where currency is null`,
    ],
    sqlite: [],
  },
  // The oldest PENDING collection, read at every scrape (paygate_collection_oldest_pending_age_seconds): an index of
  // the open ones only, which stay few however many have finished.
  {
    name: '0005_view_pending_index',
    statements: [
      `create index if not exists collection_view_pending_since
        on collection_view (created_at) where status = 'PENDING'`,
    ],
  },
]);
