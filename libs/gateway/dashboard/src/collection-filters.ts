import {
  COLLECTION_STATUSES,
  INTERNAL_REFERENCE_PATTERN,
  MERCHANT_REFERENCE_PATTERN,
  TRANSACTION_METHODS,
  type CollectionPosition,
  type CollectionStatus,
  type ListCollectionsQuery,
  type TransactionMethod,
} from '@paygate/contracts';

/** The collections page's form as the address bar carries it: every field a string, empty when unset. */
export interface CollectionFilters {
  q: string;
  status: string;
  method: string;
  provider: string;
  from: string;
  to: string;
}

/** What the page asks for: a search by reference, or a filtered page; and what was wrong with the form. */
export interface CollectionsRequest {
  filters: CollectionFilters;
  search?: { internalReference?: string; merchantReference?: string };
  list: Omit<ListCollectionsQuery, 'merchantId' | 'limit'>;
  errors: string[];
}

const INTERNAL_REFERENCE = new RegExp(INTERNAL_REFERENCE_PATTERN);
const MERCHANT_REFERENCE = new RegExp(MERCHANT_REFERENCE_PATTERN);
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const CURSOR = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)~(PG[0-9A-HJKMNP-TV-Z]{24})$/;
const FIELDS = ['q', 'status', 'method', 'provider', 'from', 'to'] as const;

/** Where the next page starts, as the "Next page" link carries it. */
export const encodePosition = (position: CollectionPosition) => `${position.createdAt}~${position.internalReference}`;

/** A UTC day's first instant, or undefined when `value` is no real day. */
function dayStart(value: string): Date | undefined {
  if (!DAY.test(value)) return undefined;
  const date = new Date(`${value}T00:00:00.000Z`);
  return Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value ? undefined : date;
}

/**
 * Reads the page's query: a search term that is an internal or merchant reference, or the filters
 * (dates are UTC days, `to` included). Anything else is named in `errors` and asks for nothing.
 */
export function readCollectionsQuery(
  query: Record<string, unknown>,
  providerCodes: readonly string[],
): CollectionsRequest {
  const text = (name: string) => (typeof query[name] === 'string' ? (query[name] as string).trim() : '');
  const filters: CollectionFilters = {
    q: text('q'),
    status: text('status'),
    method: text('method'),
    provider: text('provider'),
    from: text('from'),
    to: text('to'),
  };
  const errors: string[] = [];
  const list: CollectionsRequest['list'] = {};
  let search: CollectionsRequest['search'];

  if (filters.q) {
    if (INTERNAL_REFERENCE.test(filters.q)) search = { internalReference: filters.q };
    else if (MERCHANT_REFERENCE.test(filters.q)) search = { merchantReference: filters.q };
    else
      errors.push(
        'Search for a merchant reference (up to 64 letters, digits and . _ : / -) or an internal reference (PG…).',
      );
  }
  if (filters.status) {
    if ((COLLECTION_STATUSES as readonly string[]).includes(filters.status))
      list.status = filters.status as CollectionStatus;
    else errors.push(`Status must be one of ${COLLECTION_STATUSES.join(', ')}.`);
  }
  if (filters.method) {
    if ((TRANSACTION_METHODS as readonly string[]).includes(filters.method))
      list.method = filters.method as TransactionMethod;
    else errors.push(`Method must be one of ${TRANSACTION_METHODS.join(', ')}.`);
  }
  if (filters.provider) {
    if (providerCodes.includes(filters.provider)) list.providerCode = filters.provider;
    else errors.push('Provider must be one of the providers listed.');
  }
  const from = filters.from ? dayStart(filters.from) : undefined;
  const to = filters.to ? dayStart(filters.to) : undefined;
  if (filters.from && !from) errors.push('From must be a date (YYYY-MM-DD).');
  if (filters.to && !to) errors.push('To must be a date (YYYY-MM-DD).');
  if (from) list.createdFrom = from.toISOString();
  if (to) list.createdTo = new Date(to.getTime() + 86_400_000).toISOString();
  if (from && to && from > to) errors.push('From must not be after To.');

  const after = text('after');
  if (after) {
    const match = CURSOR.exec(after);
    if (match) list.after = { createdAt: match[1], internalReference: match[2] };
    else errors.push('This page link is not one the dashboard gave; start again from the first page.');
  }
  return { filters, search, list, errors };
}

/** The filters alone (no search, no position) as a query string: the next page's, the download's. */
export function filtersQuery(filters: CollectionFilters): URLSearchParams {
  const params = new URLSearchParams();
  for (const name of FIELDS) if (name !== 'q' && filters[name]) params.set(name, filters[name]);
  return params;
}

/** The query string of the same filters (no search), starting after `position`. */
export function nextPageQuery(filters: CollectionFilters, position: CollectionPosition): string {
  const params = filtersQuery(filters);
  params.set('after', encodePosition(position));
  return params.toString();
}
