import { defineMigrations } from '@paygate/sql';

/** Merchant accounts (MerchantAccounts). */
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
  },
]);
