import { defineMigrations } from '@paygate/sql';

/**
 * The one job table every queue shares (a queue is a name: `collection_timers`, `payment_timers`,
 * …). `run_at` is when a job may next be claimed; a claim moves it to the end of the lease and
 * sets `lease_until` to the same instant, which is the claim's token: complete and retry change
 * the job only while it still holds that lease. `jobs_due` is the claim's index (queue, run_at):
 * a claim reads the due end of it and stops after its window, whatever the backlog behind.
 * `jobs_leased` holds only the jobs under a lease, so counting a lane's claims in flight costs
 * what is in flight, never the backlog.
 */
export const JOBS_MIGRATIONS = defineMigrations('jobs', [
  {
    name: '0001_jobs',
    statements: [
      `create table if not exists jobs (
        queue text not null,
        key text not null,
        lane text not null default '',
        payload jsonb,
        due_at timestamptz not null,
        run_at timestamptz not null,
        lease_until timestamptz,
        attempts integer not null default 0,
        primary key (queue, key)
      )`,
      `create index if not exists jobs_due on jobs (queue, run_at)`,
      `create index if not exists jobs_leased on jobs (queue, lease_until, lane) where lease_until is not null`,
    ],
    // Times in epoch milliseconds, the payload JSON text (sqlite-dialect.ts).
    sqlite: [
      `create table jobs (
        queue text not null,
        key text not null,
        lane text not null default '',
        payload text,
        due_at integer not null,
        run_at integer not null,
        lease_until integer,
        attempts integer not null default 0,
        primary key (queue, key)
      )`,
      `create index jobs_due on jobs (queue, run_at)`,
      `create index jobs_leased on jobs (queue, lease_until, lane) where lease_until is not null`,
    ],
  },
]);
