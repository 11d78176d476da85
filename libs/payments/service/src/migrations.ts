import { defineMigrations } from '@paygate/sql';
import { timerAdoptionStatements, timerTableStatements } from '@paygate/timers';

/** The service-payments read models (PaymentsProjection) and its durable timers (PAYMENT_TIMERS). */
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
  },
  // The timers an older release left in payment_timers, onto the job queue: needs the `jobs` migrations first.
  { name: '0002_timers_onto_job_queue', statements: timerAdoptionStatements('payment_timers') },
]);
