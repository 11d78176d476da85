import { defineMigrations } from '@paygate/sql';

/** money_out_view's indexes (0001): a merchant's lists, a collection's refunds, what needs attention, what is pending. */
const MONEY_OUT_VIEW_INDEXES = [
  `create index if not exists money_out_view_merchant on money_out_view (merchant_id, kind, created_at desc, reference desc)`,
  `create index if not exists money_out_view_collection on money_out_view (internal_reference) where internal_reference is not null`,
  `create index if not exists money_out_view_attention on money_out_view (needs_attention) where needs_attention = 1`,
  // The oldest PENDING money-out of each kind, read at every scrape (paygate_money_out_oldest_pending_age_seconds).
  `create index if not exists money_out_view_pending on money_out_view (kind, created_at) where status = 'PENDING'`,
];

/**
 * The disbursements read model (DisbursementsProjection); its timers live on the job queue (`jobs`). SQLite's schema
 * starts at this release: its form of 0001 creates the view as 0002 leaves it (state as JSON text).
 */
export const DISBURSEMENTS_MIGRATIONS = defineMigrations('disbursements', [
  {
    name: '0001_money_out_view',
    statements: [
      `create table if not exists money_out_view (
        stream_id text primary key,
        merchant_id text not null,
        kind text not null,
        reference text not null,
        internal_reference text,
        status text not null,
        needs_attention integer not null,
        amount bigint not null,
        created_at text not null,
        state jsonb not null,
        revision integer not null
      )`,
      ...MONEY_OUT_VIEW_INDEXES,
    ],
    sqlite: [
      `create table money_out_view (
        stream_id text primary key,
        merchant_id text not null,
        kind text not null,
        reference text not null,
        internal_reference text,
        status text not null,
        needs_attention integer not null,
        amount integer not null,
        created_at text not null,
        state text not null,
        revision integer not null,
        provider_code text,
        currency text
      )`,
      ...MONEY_OUT_VIEW_INDEXES,
    ],
  },
  // Payouts are listed by provider and counted per currency and day (the daily cap).
  {
    name: '0002_money_out_view_payouts',
    statements: [
      'alter table money_out_view add column if not exists provider_code text',
      'alter table money_out_view add column if not exists currency text',
    ],
    sqlite: [],
  },
]);
