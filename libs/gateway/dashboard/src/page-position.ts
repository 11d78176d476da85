/** Where a page of the wallet or the service payments starts: an instant and an id, as the "Next page" link carries them. */
export interface PagePosition {
  at: string;
  id: string;
}

const POSITION = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?Z)~([A-Za-z0-9_-]{1,100})$/;

/** A real instant: `Date` would read 2026-02-30 as March 2nd, and the database refuses it. */
const realInstant = (at: string) => {
  const date = new Date(at);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 19) === at.slice(0, 19);
};

/** The position in `query.after`: undefined on a first page, null when it is not one a page gave. */
export function pageAfter(query: Record<string, unknown>): PagePosition | undefined | null {
  if (query.after === undefined || query.after === '') return undefined;
  const match = typeof query.after === 'string' ? POSITION.exec(query.after) : null;
  return match && realInstant(match[1]) ? { at: match[1], id: match[2] } : null;
}

/** The next page's query string: the page's own filters, and where it starts. */
export const positionQuery = (position: PagePosition, filters: Record<string, string> = {}) =>
  new URLSearchParams({ ...filters, after: `${position.at}~${position.id}` }).toString();
