import { defineMigrations } from '@paygate/sql';
import { timerAdoptionStatements, timerTableStatements } from '@paygate/timers';

/**
 * The collections context's tables: the merchant_reference reservations (ReferenceRegistry), the
 * read model (CollectionProjection) and the durable timers (COLLECTION_TIMERS).
 */
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
  },
  // The timers an older release left in collection_timers, onto the job queue: needs the `jobs` migrations first.
  { name: '0002_timers_onto_job_queue', statements: timerAdoptionStatements('collection_timers') },
]);
