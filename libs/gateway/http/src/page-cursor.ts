import type { FieldError } from './validation';

/** How many items a page holds: `limit` from 1 to `max`, `default` when absent. */
export const PAGE_LIMIT = { default: 20, max: 100 };

const CURSOR = /^[A-Za-z0-9_-]{1,300}$/;

/** An instant as the read models store it for ordering: Date.prototype.toISOString's form, which sorts as instants do. */
export const STORED_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * A page's end as merchants hand it back (`next_cursor` → `cursor`): opaque and URL-safe, the
 * position's parts joined. None of the parts may contain `|`.
 */
export const encodeCursor = (...parts: string[]) => Buffer.from(parts.join('|')).toString('base64url');

/** The parts of a cursor this API made, each matching its pattern; undefined for anything else. */
export function decodeCursor(cursor: string, patterns: RegExp[]): string[] | undefined {
  if (!CURSOR.test(cursor)) return undefined;
  const parts = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  return parts.length === patterns.length && parts.every((part, i) => patterns[i].test(part)) ? parts : undefined;
}

/**
 * The query parameters of a paged list: each known, given at most once. An unknown one is refused
 * rather than ignored, so a misspelt filter never answers with everything. Calls `read` with each
 * known parameter's value; `read` returns an error message for a bad one.
 */
export function readPageQuery(
  query: Record<string, unknown>,
  parameters: readonly string[],
  read: (name: string, value: string) => string | undefined,
): FieldError[] {
  const errors: FieldError[] = [];
  for (const [field, value] of Object.entries(query)) {
    if (!parameters.includes(field)) {
      errors.push({ field, message: `unknown query parameter; this list takes ${parameters.join(', ')}` });
      continue;
    }
    const message = typeof value === 'string' ? read(field, value) : `${field} must be given once`;
    if (message !== undefined) errors.push({ field, message });
  }
  return errors;
}

/** `limit` as a page size, or undefined when it is not a whole number from 1 to PAGE_LIMIT.max. */
export const pageLimit = (value: string) =>
  /^[0-9]{1,3}$/.test(value) && Number(value) >= 1 && Number(value) <= PAGE_LIMIT.max ? Number(value) : undefined;

export const LIMIT_MESSAGE = `limit must be a whole number from 1 to ${PAGE_LIMIT.max}`;
export const CURSOR_MESSAGE = 'cursor must be a next_cursor this API answered';
