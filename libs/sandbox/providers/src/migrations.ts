import { defineMigrations, SQLITE_NOW } from '@paygate/sql';
import { SEEDED_PRN } from './biller/biller-store';

/**
 * The simulated providers' state: mobile money (MomoStore, DisbursementStore), card checkout and refunds (CardStore,
 * CardRefundStore), the PRN biller (BillerStore).
 *
 * SQLite's schema starts at this release: its form of 0001 creates the tables as 0002 leaves them, and 0002 adds its
 * own. Times are ISO text there (SQLITE_NOW).
 */

/** The biller's one row of faults, and the PRN it answers from the start (0001). */
const BILLER_SEEDS = [
  'insert into sandbox_biller_faults (id) values (1) on conflict (id) do nothing',
  `insert into sandbox_biller_prns (prn, amount, currency, status, service_name, payer_name, expires_at)
   values ('${SEEDED_PRN}', 25000, 'UGX', 'AVAILABLE', 'URA - Domestic Tax', 'Nakato Sarah', '2099-12-31T23:59:59Z')
   on conflict (prn) do nothing`,
];
export const SANDBOX_MIGRATIONS = defineMigrations('sandbox', [
  {
    name: '0001_momo_card_and_biller',
    statements: [
      // Tokens are kept as SHA-256 hashes: a stored row never holds a usable credential.
      `create table if not exists sandbox_momo_tokens (
         token_hash text primary key,
         expires_at timestamptz not null
       )`,
      `create table if not exists sandbox_momo_requests (
         reference_id text primary key,
         amount text not null,
         currency text not null,
         external_id text not null,
         party_id_type text not null,
         party_id text not null,
         payer_message text not null,
         payee_note text not null,
         callback_url text,
         status text not null default 'PENDING',
         reason text,
         financial_transaction_id text,
         resolves_at timestamptz,
         created_at timestamptz not null default now()
       )`,
      // Only the masked number and last four digits of a card are ever stored.
      `create table if not exists sandbox_card_sessions (
         id text primary key,
         reference text not null,
         amount text not null,
         currency text not null,
         description text,
         notify_url text not null,
         return_url text not null,
         expires_at timestamptz not null,
         status text not null default 'open',
         failure_code text,
         card_last4 text,
         card_masked text,
         created_at timestamptz not null default now()
       )`,
      'create index if not exists sandbox_card_sessions_reference on sandbox_card_sessions (reference)',
      // Amounts in integer minor units; `payment_calls` counts every payment call for the PRN, whatever it was
      // answered.
      `create table if not exists sandbox_biller_prns (
         prn text primary key,
         amount bigint not null,
         currency text not null,
         status text not null,
         service_name text not null,
         payer_name text not null,
         expires_at timestamptz not null,
         payment_calls integer not null default 0,
         created_at timestamptz not null default now()
       )`,
      // One row per idempotency key: the key is the payment, so a retry can never pay twice.
      `create table if not exists sandbox_biller_payments (
         idempotency_key text primary key,
         payment_id text not null unique,
         prn text not null,
         amount bigint not null,
         currency text not null,
         reference text not null,
         status text not null default 'PENDING',
         receipt_number text not null,
         completes_at timestamptz not null,
         created_at timestamptz not null default now()
       )`,
      'create index if not exists sandbox_biller_payments_prn on sandbox_biller_payments (prn)',
      // A single row, so injected faults hold across a restart and across sandbox instances.
      `create table if not exists sandbox_biller_faults (
         id integer primary key check (id = 1),
         fail_next integer not null default 0,
         delay_ms integer not null default 0
       )`,
      'alter table sandbox_biller_faults add column if not exists fail_lookups_next integer not null default 0',
      ...BILLER_SEEDS,
    ],
    sqlite: [
      `create table sandbox_momo_tokens (
         token_hash text primary key,
         expires_at text not null,
         product text not null default 'collection'
       )`,
      `create table sandbox_momo_requests (
         reference_id text primary key,
         amount text not null,
         currency text not null,
         external_id text not null,
         party_id_type text not null,
         party_id text not null,
         payer_message text not null,
         payee_note text not null,
         callback_url text,
         status text not null default 'PENDING',
         reason text,
         financial_transaction_id text,
         resolves_at text,
         created_at text not null default (${SQLITE_NOW})
       )`,
      `create table sandbox_card_sessions (
         id text primary key,
         reference text not null,
         amount text not null,
         currency text not null,
         description text,
         notify_url text not null,
         return_url text not null,
         expires_at text not null,
         status text not null default 'open',
         failure_code text,
         card_last4 text,
         card_masked text,
         created_at text not null default (${SQLITE_NOW})
       )`,
      'create index sandbox_card_sessions_reference on sandbox_card_sessions (reference)',
      `create table sandbox_biller_prns (
         prn text primary key,
         amount integer not null,
         currency text not null,
         status text not null,
         service_name text not null,
         payer_name text not null,
         expires_at text not null,
         payment_calls integer not null default 0,
         created_at text not null default (${SQLITE_NOW})
       )`,
      `create table sandbox_biller_payments (
         idempotency_key text primary key,
         payment_id text not null unique,
         prn text not null,
         amount integer not null,
         currency text not null,
         reference text not null,
         status text not null default 'PENDING',
         receipt_number text not null,
         completes_at text not null,
         created_at text not null default (${SQLITE_NOW})
       )`,
      'create index sandbox_biller_payments_prn on sandbox_biller_payments (prn)',
      `create table sandbox_biller_faults (
         id integer primary key check (id = 1),
         fail_next integer not null default 0,
         delay_ms integer not null default 0,
         fail_lookups_next integer not null default 0
       )`,
      ...BILLER_SEEDS,
    ],
  },
  {
    name: '0002_money_out',
    statements: [
      // Each MoMo product issues its own tokens; the tokens issued before were the Collection product's.
      "alter table sandbox_momo_tokens add column if not exists product text not null default 'collection'",
      // Disbursement transfers (payouts). `requests_received` counts every request naming the reference id, the
      // first and each repeat: operators and tests read it to see that a reference was sent once.
      `create table if not exists sandbox_momo_transfers (
         reference_id text primary key,
         amount text not null,
         currency text not null,
         external_id text not null,
         party_id_type text not null,
         party_id text not null,
         payer_message text not null,
         payee_note text not null,
         callback_url text,
         status text not null default 'PENDING',
         reason text,
         financial_transaction_id text,
         resolves_at timestamptz not null,
         reverses_at timestamptz,
         requests_received integer not null default 1,
         created_at timestamptz not null default now()
       )`,
      'create index if not exists sandbox_momo_transfers_external_id on sandbox_momo_transfers (external_id)',
      `create table if not exists sandbox_momo_refunds (
         reference_id text primary key,
         reference_id_to_refund text not null,
         amount text not null,
         currency text not null,
         external_id text not null,
         payer_message text not null,
         payee_note text not null,
         callback_url text,
         status text not null default 'PENDING',
         reason text,
         financial_transaction_id text,
         resolves_at timestamptz not null,
         requests_received integer not null default 1,
         created_at timestamptz not null default now()
       )`,
      'create index if not exists sandbox_momo_refunds_external_id on sandbox_momo_refunds (external_id)',
      'create index if not exists sandbox_momo_refunds_refunded on sandbox_momo_refunds (reference_id_to_refund)',
      // Card refunds, one per refund reference, of the checkout session that charged the card.
      `create table if not exists sandbox_card_refunds (
         id text primary key,
         reference text not null unique,
         session_id text not null,
         amount text not null,
         currency text not null,
         description text,
         notify_url text not null,
         status text not null default 'pending',
         failure_code text,
         resolves_at timestamptz not null,
         requests_received integer not null default 1,
         created_at timestamptz not null default now()
       )`,
      'create index if not exists sandbox_card_refunds_session on sandbox_card_refunds (session_id)',
    ],
    sqlite: [
      `create table sandbox_momo_transfers (
         reference_id text primary key,
         amount text not null,
         currency text not null,
         external_id text not null,
         party_id_type text not null,
         party_id text not null,
         payer_message text not null,
         payee_note text not null,
         callback_url text,
         status text not null default 'PENDING',
         reason text,
         financial_transaction_id text,
         resolves_at text not null,
         reverses_at text,
         requests_received integer not null default 1,
         created_at text not null default (${SQLITE_NOW})
       )`,
      'create index sandbox_momo_transfers_external_id on sandbox_momo_transfers (external_id)',
      `create table sandbox_momo_refunds (
         reference_id text primary key,
         reference_id_to_refund text not null,
         amount text not null,
         currency text not null,
         external_id text not null,
         payer_message text not null,
         payee_note text not null,
         callback_url text,
         status text not null default 'PENDING',
         reason text,
         financial_transaction_id text,
         resolves_at text not null,
         requests_received integer not null default 1,
         created_at text not null default (${SQLITE_NOW})
       )`,
      'create index sandbox_momo_refunds_external_id on sandbox_momo_refunds (external_id)',
      'create index sandbox_momo_refunds_refunded on sandbox_momo_refunds (reference_id_to_refund)',
      `create table sandbox_card_refunds (
         id text primary key,
         reference text not null unique,
         session_id text not null,
         amount text not null,
         currency text not null,
         description text,
         notify_url text not null,
         status text not null default 'pending',
         failure_code text,
         resolves_at text not null,
         requests_received integer not null default 1,
         created_at text not null default (${SQLITE_NOW})
       )`,
      'create index sandbox_card_refunds_session on sandbox_card_refunds (session_id)',
    ],
  },
]);
