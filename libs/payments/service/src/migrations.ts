import { defineMigrations } from '@paygate/sql';
import { timerAdoptionStatements, timerTableStatements } from '@paygate/timers';

/**
 * The service-payments read models (PaymentsProjection) and its durable timers (PAYMENT_TIMERS).
 *
 * SQLite's schema starts at this release: its form of 0001 creates the tables as the later migrations leave
 * them, 0003 adds its own table, and the others have nothing to do there (no older rows to fill, no timer table to
 * move). Times are ISO text there, JSON is text.
 */

/** The list's index (0004): a merchant's service payments newest first. */
const SERVICE_PAYMENTS_NEWEST = `create index if not exists service_payment_view_newest
  on service_payment_view (merchant_id, opened_at desc, internal_reference desc)`;

/** The statement's indexes (0003), of every currency and of one. */
const WALLET_ENTRIES_INDEXES = [
  'create index if not exists wallet_entries_newest on wallet_entries (merchant_id, at desc, entry_id desc)',
  `create index if not exists wallet_entries_newest_by_currency
    on wallet_entries (merchant_id, currency, at desc, entry_id desc)`,
];
export const PAYMENTS_MIGRATIONS = defineMigrations('payments', [
  {
    name: '0001_balances_view_and_timers',
    statements: [
      `create table if not exists wallet_balances (
        merchant_id text not null,
        currency text not null,
        balance bigint not null,
        available bigint not null,
        revision integer not null,
        primary key (merchant_id, currency)
      )`,
      `create table if not exists service_payment_view (
        internal_reference text primary key,
        merchant_id text not null,
        summary jsonb not null,
        state jsonb not null,
        revision integer not null
      )`,
      ...timerTableStatements('payment_timers'),
    ],
    sqlite: [
      `create table wallet_balances (
        merchant_id text not null,
        currency text not null,
        balance integer not null,
        available integer not null,
        revision integer not null,
        primary key (merchant_id, currency)
      )`,
      `create table service_payment_view (
        internal_reference text primary key,
        merchant_id text not null,
        summary text not null,
        state text not null,
        revision integer not null,
        opened_at text
      )`,
      SERVICE_PAYMENTS_NEWEST,
    ],
  },
  // The timers an older release left in payment_timers, onto the job queue: needs the `jobs` migrations first.
  { name: '0002_timers_onto_job_queue', statements: timerAdoptionStatements('payment_timers'), sqlite: [] },
  // GET /v1/wallet/transactions: one row per wallet event, written with the balance it changed. `at` is the event's
  // instant in toISOString's form, so it sorts as instants do.
  {
    name: '0003_wallet_entries',
    statements: [
      `create table if not exists wallet_entries (
        entry_id bigserial primary key,
        merchant_id text not null,
        currency text not null,
        revision integer not null,
        kind text not null,
        balance_change bigint not null,
        available_change bigint not null,
        hold_id text,
        purpose text,
        internal_reference text,
        transfers jsonb not null,
        at text not null,
        unique (merchant_id, currency, revision)
      )`,
      ...WALLET_ENTRIES_INDEXES,
    ],
    sqlite: [
      `create table wallet_entries (
        entry_id integer primary key autoincrement,
        merchant_id text not null,
        currency text not null,
        revision integer not null,
        kind text not null,
        balance_change integer not null,
        available_change integer not null,
        hold_id text,
        purpose text,
        internal_reference text,
        transfers text not null,
        at text not null,
        unique (merchant_id, currency, revision)
      )`,
      ...WALLET_ENTRIES_INDEXES,
    ],
  },
  // payments.listServicePayments (the merchant dashboard): a merchant's service payments newest first. opened_at is
  // the ServicePaymentOpened instant, which the state of every row already holds.
  {
    name: '0004_service_payments_by_opening',
    statements: [
      'alter table service_payment_view add column if not exists opened_at timestamptz',
      `update service_payment_view set opened_at = (state->'opened'->>'openedAt')::timestamptz
        where opened_at is null and state->'opened'->>'openedAt' is not null`,
      SERVICE_PAYMENTS_NEWEST,
    ],
    sqlite: [],
  },
]);
