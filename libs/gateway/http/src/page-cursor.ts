import { applyDecorators } from '@nestjs/common';
import { ApiQuery } from '@nestjs/swagger';
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
function decodeCursor(cursor: string, patterns: RegExp[]): string[] | undefined {
  if (!CURSOR.test(cursor)) return undefined;
  const parts = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  return parts.length === patterns.length && parts.every((part, i) => patterns[i].test(part)) ? parts : undefined;
}

/** The OpenAPI parameters every paged list takes beside its filters. */
export const PageParameters = () =>
  applyDecorators(
    ApiQuery({
      name: 'limit',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: PAGE_LIMIT.max, default: PAGE_LIMIT.default },
    }),
    ApiQuery({
      name: 'cursor',
      required: false,
      description: 'The next_cursor of the previous page',
      schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,300}$' },
    }),
  );

/** The OpenAPI parameters of a list filtered by creation time. */
export const CreatedRangeParameters = () =>
  applyDecorators(
    ApiQuery({
      name: 'created_from',
      required: false,
      description: 'Created at or after: a date (midnight UTC) or an RFC 3339 date-time',
      schema: { type: 'string' },
      example: '2026-11-01',
    }),
    ApiQuery({
      name: 'created_to',
      required: false,
      description: 'Created before: a date (midnight UTC) or an RFC 3339 date-time',
      schema: { type: 'string' },
      example: '2026-12-01',
    }),
  );

/**
 * A paged list's query: `limit`, `cursor` (whose parts must match `cursorParts`) and the list's
 * own `filters`, each known and given at most once. An unknown parameter is refused rather than
 * ignored, so a misspelt filter never answers with everything. `readFilter` reads one filter's
 * value and returns an error message for a bad one.
 */
export function readPageQuery(
  query: Record<string, unknown>,
  { filters, cursorParts }: { filters: readonly string[]; cursorParts: RegExp[] },
  readFilter: (name: string, value: string) => string | undefined,
): { limit: number; after?: string[]; errors: FieldError[] } {
  const known = [...filters, 'limit', 'cursor'];
  const page: { limit: number; after?: string[] } = { limit: PAGE_LIMIT.default };
  const errors: FieldError[] = [];
  for (const [field, value] of Object.entries(query)) {
    if (!known.includes(field)) {
      errors.push({ field, message: `unknown query parameter; this list takes ${known.join(', ')}` });
      continue;
    }
    let message: string | undefined;
    if (typeof value !== 'string') message = `${field} must be given once`;
    else if (field === 'limit') {
      const limit = /^[0-9]{1,3}$/.test(value) ? Number(value) : 0;
      if (limit >= 1 && limit <= PAGE_LIMIT.max) page.limit = limit;
      else message = `limit must be a whole number from 1 to ${PAGE_LIMIT.max}`;
    } else if (field === 'cursor') {
      page.after = decodeCursor(value, cursorParts);
      if (!page.after) message = 'cursor must be a next_cursor this API answered';
    } else message = readFilter(field, value);
    if (message !== undefined) errors.push({ field, message });
  }
  return { ...page, errors };
}
