import { COLLECTIONS_MIGRATIONS } from '@paygate/collections-service';
import { EVENT_STORE_MIGRATIONS } from '@paygate/event-store';
import { JOBS_MIGRATIONS } from '@paygate/jobs';
import { MERCHANTS_MIGRATIONS } from '@paygate/merchants';
import { MESSAGING_MIGRATIONS } from '@paygate/messaging';
import { DISBURSEMENTS_MIGRATIONS } from '@paygate/disbursements-service';
import { PAYMENTS_MIGRATIONS } from '@paygate/payments-service';
import { RATE_LIMIT_MIGRATIONS } from '@paygate/platform';
import { SANDBOX_MIGRATIONS } from '@paygate/sandbox-providers';
import type { Migration } from '@paygate/sql';
import { WEBHOOKS_MIGRATIONS } from '@paygate/webhooks-service';

/**
 * Every library's migrations in the one global order `paygate migrate` applies them: shared
 * infrastructure first, then each context. A library's migrations touch only its own tables, so
 * apps that apply their own libraries' lists at start (in any order) end in the same layout.
 */
export function paygateMigrations({ eventsInSql, sandbox }: { eventsInSql: boolean; sandbox: boolean }): Migration[] {
  return [
    ...(eventsInSql ? EVENT_STORE_MIGRATIONS : []),
    ...MESSAGING_MIGRATIONS,
    ...JOBS_MIGRATIONS,
    ...MERCHANTS_MIGRATIONS,
    ...RATE_LIMIT_MIGRATIONS,
    ...COLLECTIONS_MIGRATIONS,
    ...PAYMENTS_MIGRATIONS,
    ...DISBURSEMENTS_MIGRATIONS,
    ...WEBHOOKS_MIGRATIONS,
    ...(sandbox ? SANDBOX_MIGRATIONS : []),
  ];
}
