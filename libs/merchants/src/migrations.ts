import { defineMigrations, SQLITE_NOW } from '@paygate/sql';

/** Merchant accounts (MerchantAccounts) and the people who sign in to their dashboard (DashboardUsers). */
export const MERCHANTS_MIGRATIONS = defineMigrations('merchants', [
  {
    name: '0001_merchants',
    statements: [
      `create table if not exists merchants (
        id text primary key,
        name text not null,
        status text not null default 'active',
        public_key text not null unique,
        secret_key_hash text not null,
        secret_key_sealed text not null,
        signing_key_sealed text not null,
        collection_callback_url text,
        service_payments_callback_url text,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`,
    ],
    // On SQLite times are ISO text (SQLITE_NOW), as in every migration below.
    sqlite: [
      `create table merchants (
        id text primary key,
        name text not null,
        status text not null default 'active',
        public_key text not null unique,
        secret_key_hash text not null,
        secret_key_sealed text not null,
        signing_key_sealed text not null,
        collection_callback_url text,
        service_payments_callback_url text,
        created_at text not null default (${SQLITE_NOW}),
        updated_at text not null default (${SQLITE_NOW})
      )`,
    ],
  },
  {
    name: '0002_dashboard_users',
    statements: [
      `create table if not exists dashboard_users (
        id text primary key,
        merchant_id text not null references merchants (id),
        email text not null unique,
        role text not null,
        password_hash text,
        created_at timestamptz not null default now()
      )`,
      'create index if not exists dashboard_users_merchant on dashboard_users (merchant_id)',
      `create table if not exists dashboard_invites (
        token_hash text primary key,
        user_id text not null references dashboard_users (id) on delete cascade,
        expires_at timestamptz not null,
        used_at timestamptz
      )`,
      `create table if not exists dashboard_sessions (
        id_hash text primary key,
        user_id text not null references dashboard_users (id) on delete cascade,
        csrf_token text not null,
        created_at timestamptz not null default now(),
        expires_at timestamptz not null
      )`,
      'create index if not exists dashboard_sessions_user on dashboard_sessions (user_id)',
    ],
    // The email is unique per merchant from the start (0005 on PostgreSQL): SQLite cannot drop a constraint.
    sqlite: [
      `create table dashboard_users (
        id text primary key,
        merchant_id text not null references merchants (id),
        email text not null,
        role text not null,
        password_hash text,
        created_at text not null default (${SQLITE_NOW})
      )`,
      'create index dashboard_users_merchant on dashboard_users (merchant_id)',
      `create table dashboard_invites (
        token_hash text primary key,
        user_id text not null references dashboard_users (id) on delete cascade,
        expires_at text not null,
        used_at text
      )`,
      `create table dashboard_sessions (
        id_hash text primary key,
        user_id text not null references dashboard_users (id) on delete cascade,
        csrf_token text not null,
        created_at text not null default (${SQLITE_NOW}),
        expires_at text not null
      )`,
      'create index dashboard_sessions_user on dashboard_sessions (user_id)',
    ],
  },
  // Sign-in attempts, counted in the database so every gateway of a deployment counts the same ones.
  {
    name: '0003_dashboard_sign_in_attempts',
    statements: [
      `create table if not exists dashboard_sign_in_attempts (
        key text not null,
        at timestamptz not null
      )`,
      'create index if not exists dashboard_sign_in_attempts_key on dashboard_sign_in_attempts (key, at)',
      'create index if not exists dashboard_sign_in_attempts_at on dashboard_sign_in_attempts (at)',
    ],
    sqlite: [
      `create table dashboard_sign_in_attempts (
        key text not null,
        at text not null
      )`,
      'create index dashboard_sign_in_attempts_key on dashboard_sign_in_attempts (key, at)',
      'create index dashboard_sign_in_attempts_at on dashboard_sign_in_attempts (at)',
    ],
  },
  // What each dashboard user did: the merchant's activity log on the Settings page.
  {
    name: '0004_dashboard_activity',
    statements: [
      `create table if not exists dashboard_activity (
        id bigserial primary key,
        merchant_id text not null references merchants (id),
        email text not null,
        action text not null,
        detail text not null,
        at timestamptz not null
      )`,
      'create index if not exists dashboard_activity_merchant on dashboard_activity (merchant_id, at desc, id desc)',
    ],
    sqlite: [
      `create table dashboard_activity (
        id integer primary key,
        merchant_id text not null references merchants (id),
        email text not null,
        action text not null,
        detail text not null,
        at text not null
      )`,
      'create index dashboard_activity_merchant on dashboard_activity (merchant_id, at desc, id desc)',
    ],
  },
  // A person's dashboard identity is per merchant: an owner inviting an email learns nothing of other merchants.
  {
    name: '0005_dashboard_users_per_merchant',
    statements: [
      'alter table dashboard_users drop constraint if exists dashboard_users_email_key',
      'create unique index if not exists dashboard_users_merchant_email on dashboard_users (merchant_id, email)',
      'create index if not exists dashboard_users_email on dashboard_users (email)',
    ],
    sqlite: [
      'create unique index dashboard_users_merchant_email on dashboard_users (merchant_id, email)',
      'create index dashboard_users_email on dashboard_users (email)',
    ],
  },
  // A merchant's payout limits, set by operators: the approval threshold (UGX 5,000,000 unless set) and a daily cap.
  {
    name: '0006_merchant_payout_limits',
    statements: [
      'alter table merchants add column if not exists payout_approval_threshold bigint default 5000000',
      'alter table merchants add column if not exists payout_daily_cap bigint',
    ],
    sqlite: [
      'alter table merchants add column payout_approval_threshold integer default 5000000',
      'alter table merchants add column payout_daily_cap integer',
    ],
  },
  // Payout callbacks (payout.*) go to a URL of their own; null until the merchant sets one.
  {
    name: '0007_payouts_callback_url',
    statements: ['alter table merchants add column if not exists payouts_callback_url text'],
    sqlite: ['alter table merchants add column payouts_callback_url text'],
  },
]);
