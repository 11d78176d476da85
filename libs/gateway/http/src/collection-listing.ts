import {
  COLLECTION_STATUSES,
  TRANSACTION_METHODS,
  type CollectionPosition,
  type CollectionStatus,
  type ListCollectionsQuery,
  type TransactionMethod,
} from '@paygate/contracts';
import { INTERNAL_REFERENCE_PATTERN } from './openapi/schemas';
import type { FieldError } from './validation';

export const LISTING_LIMIT = { default: 20, max: 100 };

/** The query parameters GET /v1/collections lists with (merchant_reference finds one collection instead). */
export const LISTING_PARAMETERS = [
  'status',
  'transaction_method',
  'provider_code',
  'created_from',
  'created_to',
  'limit',
  'cursor',
] as const;

/** RFC 3339: a date, or a date-time with its offset. */
const INSTANT = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:Z|[+-](\d{2}):(\d{2})))?$/i;
/** How the projection stores created_at: Date.prototype.toISOString's form, which sorts as instants do. */
const STORED_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const INTERNAL_REFERENCE = new RegExp(INTERNAL_REFERENCE_PATTERN);
const PROVIDER_CODE = /^[A-Za-z0-9_-]{1,64}$/;
const CURSOR = /^[A-Za-z0-9_-]{1,200}$/;

/** Opaque to merchants: where the page ended, so the next one starts after it whatever was inserted since. */
export const encodeCursor = ({ createdAt, internalReference }: CollectionPosition) =>
  Buffer.from(`${createdAt}|${internalReference}`).toString('base64url');

function decodeCursor(cursor: string): CollectionPosition | undefined {
  if (!CURSOR.test(cursor)) return undefined;
  const [createdAt, internalReference, ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (rest.length > 0 || !STORED_INSTANT.test(createdAt) || !INTERNAL_REFERENCE.test(internalReference ?? ''))
    return undefined;
  return { createdAt, internalReference };
}

/** The instant in the stored form; undefined for a day or time the calendar has not (Date would roll 02-30 over). */
function instant(value: string): string | undefined {
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

/**
 * The listing's query parameters, each optional and given at most once; an unknown parameter is
 * refused rather than ignored, so a misspelt filter never answers with everything.
 */
export function parseListing(
  merchantId: string,
  query: Record<string, unknown>,
): { value: ListCollectionsQuery; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const value: ListCollectionsQuery = { merchantId, limit: LISTING_LIMIT.default };
  const refuse = (field: string, message: string) => errors.push({ field, message });
  for (const [field, raw] of Object.entries(query)) {
    if (!(LISTING_PARAMETERS as readonly string[]).includes(field)) {
      refuse(field, `unknown query parameter; filters are ${LISTING_PARAMETERS.join(', ')}`);
      continue;
    }
    if (typeof raw !== 'string') {
      refuse(field, `${field} must be given once`);
      continue;
    }
    switch (field) {
      case 'status':
        if ((COLLECTION_STATUSES as readonly string[]).includes(raw)) value.status = raw as CollectionStatus;
        else refuse(field, `status must be one of ${COLLECTION_STATUSES.join(', ')}`);
        break;
      case 'transaction_method':
        if ((TRANSACTION_METHODS as readonly string[]).includes(raw)) value.method = raw as TransactionMethod;
        else refuse(field, `transaction_method must be one of ${TRANSACTION_METHODS.join(', ')}`);
        break;
      case 'provider_code':
        if (PROVIDER_CODE.test(raw)) value.providerCode = raw;
        else refuse(field, 'provider_code must be 1 to 64 letters, digits, _ or -');
        break;
      case 'created_from':
      case 'created_to': {
        const at = instant(raw);
        if (at === undefined) refuse(field, `${field} must be a date (2026-11-26) or an RFC 3339 date-time`);
        else if (field === 'created_from') value.createdFrom = at;
        else value.createdTo = at;
        break;
      }
      case 'limit':
        if (/^[0-9]{1,3}$/.test(raw) && Number(raw) >= 1 && Number(raw) <= LISTING_LIMIT.max) value.limit = Number(raw);
        else refuse(field, `limit must be a whole number from 1 to ${LISTING_LIMIT.max}`);
        break;
      case 'cursor': {
        const after = decodeCursor(raw);
        if (after) value.after = after;
        else refuse(field, 'cursor must be a next_cursor this API answered');
        break;
      }
    }
  }
  return { value, errors };
}
