import { JOBS_MIGRATIONS } from '@paygate/jobs';
import { defineMigrations, migrate, SQLITE_NOW, type SqlDatabase } from '@paygate/sql';

/**
 * The callback deliveries (DeliveryQueue, DeliveryHistory), every attempt at sending them, and the callback stream.
 *
 * SQLite's schema starts at this release: its form of 0001 creates the deliveries as 0005 leaves them, 0003 has
 * nothing to move there, and 0004's indexes are the same statements. Times are ISO text there (SQLITE_NOW), `awaits`
 * a JSON array, the stream ordered by its position alone (sqlite-dialect.ts).
 */

/** The deliveries' indexes (0001): due, in flight per host, a transaction's in order. */
const DELIVERY_INDEXES = [
  `create index if not exists webhook_deliveries_due on webhook_deliveries (next_attempt_at) where state = 'pending'`,
  `create index if not exists webhook_deliveries_in_flight on webhook_deliveries (target_host) where state = 'delivering'`,
  'create index if not exists webhook_deliveries_transaction on webhook_deliveries (internal_reference, target_url, sequence)',
];
export const WEBHOOKS_MIGRATIONS = defineMigrations('webhooks', [
  {
    name: '0001_deliveries_and_attempts',
    statements: [
      `create table if not exists webhook_deliveries (
        webhook_id text primary key,
        merchant_id text not null,
        internal_reference text not null,
        sequence integer not null,
        event_name text not null,
        target_url text,
        target_host text,
        body text not null,
        state text not null check (state in ('pending', 'delivering', 'delivered', 'abandoned', 'undeliverable')),
        attempts integer not null default 0,
        next_attempt_at timestamptz not null,
        claim_token text,
        lease_until timestamptz,
        created_at timestamptz not null default now(),
        delivered_at timestamptz,
        last_status integer,
        last_error text
      )`,
      ...DELIVERY_INDEXES,
      // Added with the payment callbacks; tables created before have none.
      `alter table webhook_deliveries add column if not exists awaits text[] not null default '{}'`,
      `create table if not exists webhook_attempts (
        webhook_id text not null references webhook_deliveries (webhook_id),
        attempt integer not null,
        started_at timestamptz not null,
        duration_ms integer not null,
        status_code integer,
        response_excerpt text not null,
        error text,
        primary key (webhook_id, attempt)
      )`,
    ],
    sqlite: [
      `create table webhook_deliveries (
        webhook_id text primary key,
        merchant_id text not null,
        internal_reference text not null,
        sequence integer not null,
        event_name text not null,
        target_url text,
        target_host text,
        body text not null,
        state text not null check (state in ('pending', 'delivering', 'delivered', 'abandoned', 'undeliverable')),
        attempts integer not null default 0,
        next_attempt_at text not null,
        claim_token text,
        lease_until text,
        created_at text not null default (${SQLITE_NOW}),
        delivered_at text,
        last_status integer,
        last_error text,
        awaits text not null default '[]',
        correlation_id text,
        traceparent text
      )`,
      ...DELIVERY_INDEXES,
      `create table webhook_attempts (
        webhook_id text not null references webhook_deliveries (webhook_id),
        attempt integer not null,
        started_at text not null,
        duration_ms integer not null,
        status_code integer,
        response_excerpt text not null,
        error text,
        primary key (webhook_id, attempt)
      )`,
    ],
  },
  {
    name: '0002_callback_stream',
    statements: [
      // Every callback as signed for a merchant, for `paygate listen` (CallbackStream). Read in
      // (transaction_id, position) order below the oldest running transaction, as the event log
      // is, so a reader never passes a row that commits later. Pruned after an hour.
      `create table if not exists webhook_stream (
        position bigserial primary key,
        transaction_id xid8 not null default pg_current_xact_id(),
        merchant_id text not null,
        webhook_id text not null,
        internal_reference text not null,
        event_name text not null,
        body text not null,
        headers jsonb,
        sent boolean not null,
        created_at timestamptz not null default now()
      )`,
      'create index if not exists webhook_stream_merchant on webhook_stream (merchant_id, transaction_id, position)',
      'create index if not exists webhook_stream_created on webhook_stream (created_at)',
    ],
    sqlite: [
      `create table webhook_stream (
        position integer primary key autoincrement,
        merchant_id text not null,
        webhook_id text not null,
        internal_reference text not null,
        event_name text not null,
        body text not null,
        headers text,
        sent integer not null,
        created_at text not null default (${SQLITE_NOW})
      )`,
      'create index webhook_stream_merchant on webhook_stream (merchant_id, position)',
      'create index webhook_stream_created on webhook_stream (created_at)',
    ],
  },
  {
    name: '0003_deliveries_onto_job_queue',
    statements: [
      // During a rolling upgrade the older pods still insert and update deliveries without jobs. These
      // triggers, created first (their lock holds those writes until the migration commits), give each
      // pending delivery without a job one (queue `callbacks`, lane = host); the claim decides when it goes.
      `create or replace function webhook_deliveries_onto_job_queue() returns trigger language plpgsql as $$
       begin
         insert into jobs (queue, key, lane, due_at, run_at)
         select 'callbacks', webhook_id, coalesce(target_host, ''), next_attempt_at, next_attempt_at from written where state = 'pending'
         on conflict (queue, key) do nothing;
         return null;
       end $$`,
      `create or replace trigger webhook_deliveries_inserted_onto_job_queue after insert on webhook_deliveries
       referencing new table as written for each statement execute function webhook_deliveries_onto_job_queue()`,
      `create or replace trigger webhook_deliveries_updated_onto_job_queue after update on webhook_deliveries
       referencing new table as written for each statement execute function webhook_deliveries_onto_job_queue()`,
      // Then the deliveries the older release left waiting or in flight get theirs, once.
      `insert into jobs (queue, key, lane, due_at, run_at)
       select 'callbacks', webhook_id, coalesce(target_host, ''), next_attempt_at, next_attempt_at
       from webhook_deliveries where state in ('pending', 'delivering')
       on conflict (queue, key) do nothing`,
    ],
    sqlite: [],
  },
  {
    // GET /v1/callbacks: a merchant's deliveries, newest first.
    name: '0004_deliveries_by_merchant',
    statements: [
      `create index if not exists webhook_deliveries_merchant_newest
        on webhook_deliveries (merchant_id, created_at desc, webhook_id desc)`,
      // By state too: the abandoned ones are few, and a merchant looks for exactly those.
      `create index if not exists webhook_deliveries_merchant_newest_by_state
        on webhook_deliveries (merchant_id, state, created_at desc, webhook_id desc)`,
    ],
  },
  {
    // The flow a callback belongs to, for its attempts' log lines, and the span that queued it, which the attempt's
    // span continues (null: queued by a release before, or with tracing off).
    name: '0005_delivery_flow',
    statements: [
      'alter table webhook_deliveries add column if not exists correlation_id text',
      'alter table webhook_deliveries add column if not exists traceparent text',
    ],
    sqlite: [],
  },
]);

/** Applies the webhooks migrations after the `jobs` ones, which 0003 needs; every opener of these tables calls it. */
export function migrateWebhooks(sql: SqlDatabase): Promise<unknown> {
  return migrate(sql, [...JOBS_MIGRATIONS, ...WEBHOOKS_MIGRATIONS]);
}
