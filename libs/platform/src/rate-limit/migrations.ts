import { defineMigrations } from '@paygate/sql';

/** Token buckets shared by every gateway (SqlRateLimitStore). */
export const RATE_LIMIT_MIGRATIONS = defineMigrations('rate-limits', [
  {
    name: '0001_buckets',
    statements: [
      `create table if not exists rate_limit_buckets (
        key text primary key,
        full_at timestamptz not null,
        allowed boolean not null
      )`,
    ],
  },
]);
