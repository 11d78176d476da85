import {
  COLLECTION_STATUSES,
  TRANSACTION_METHODS,
  type CollectionPosition,
  type CollectionStatus,
  type ListCollectionsQuery,
  type TransactionMethod,
} from '@paygate/contracts';
import { INTERNAL_REFERENCE_PATTERN } from './openapi/schemas';
import { encodeCursor, readPageQuery, STORED_INSTANT } from './page-cursor';
import type { FieldError } from './validation';

/** RFC 3339: a date, or a date-time with its offset. */
const INSTANT = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:Z|[+-](\d{2}):(\d{2})))?$/i;
const INTERNAL_REFERENCE = new RegExp(INTERNAL_REFERENCE_PATTERN);
const PROVIDER_CODE = /^[A-Za-z0-9_-]{1,64}$/;
/** GET /v1/collections' filters (merchant_reference finds one collection instead) and its position's parts. */
const LISTING_PAGE = {
  filters: ['status', 'transaction_method', 'provider_code', 'created_from', 'created_to'],
  cursorParts: [STORED_INSTANT, INTERNAL_REFERENCE],
};

/** Where the page ended, so the next one starts after it whatever was inserted since. */
export const collectionCursor = ({ createdAt, internalReference }: CollectionPosition) =>
  encodeCursor(createdAt, internalReference);

/** The instant in the stored form; undefined for a day or time the calendar has not (Date would roll 02-30 over). */
export function instant(value: string): string | undefined {
  const parts = INSTANT.exec(value);
  if (!parts) return undefined;
  const [year, month, day, hour = 0, minute = 0, second = 0, offsetHours = 0, offsetMinutes = 0] = parts
    .slice(1)
    .map((part) => (part === undefined ? undefined : Number(part)));
  const daysInMonth = new Date(Date.UTC(year!, month!, 0)).getUTCDate();
  const valid =
    year! >= 1 &&
    month! >= 1 &&
    month! <= 12 &&
    day! >= 1 &&
    day! <= daysInMonth &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59 &&
    offsetHours <= 23 &&
    offsetMinutes <= 59;
  if (!valid) return undefined;
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? undefined : at.toISOString();
}

/** The listing's query parameters, each optional. */
export function parseListing(
  merchantId: string,
  query: Record<string, unknown>,
): { value: ListCollectionsQuery; errors: FieldError[] } {
  const value: ListCollectionsQuery = { merchantId, limit: 0 };
  const { limit, after, errors } = readPageQuery(query, LISTING_PAGE, (field, raw) => {
    switch (field) {
      case 'status':
        if (!(COLLECTION_STATUSES as readonly string[]).includes(raw))
          return `status must be one of ${COLLECTION_STATUSES.join(', ')}`;
        value.status = raw as CollectionStatus;
        return undefined;
      case 'transaction_method':
        if (!(TRANSACTION_METHODS as readonly string[]).includes(raw))
          return `transaction_method must be one of ${TRANSACTION_METHODS.join(', ')}`;
        value.method = raw as TransactionMethod;
        return undefined;
      case 'provider_code':
        if (!PROVIDER_CODE.test(raw)) return 'provider_code must be 1 to 64 letters, digits, _ or -';
        value.providerCode = raw;
        return undefined;
      case 'created_from':
      case 'created_to': {
        const at = instant(raw);
        if (at === undefined) return `${field} must be a date (2026-11-26) or an RFC 3339 date-time`;
        if (field === 'created_from') value.createdFrom = at;
        else value.createdTo = at;
        return undefined;
      }
    }
  });
  value.limit = limit;
  if (after) value.after = { createdAt: after[0], internalReference: after[1] };
  return { value, errors };
}
