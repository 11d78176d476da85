/**
 * The one place HTML output is encoded: every value interpolated into `html` is escaped unless it
 * is itself `html` (a fragment built the same way), so a page has no unescaped interpolation.
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => ENTITIES[c]);

type Interpolated = Html | string | number | null | undefined | false | readonly Interpolated[];

function encode(value: Interpolated): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(encode).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Interpolated[]): Html {
  return new Html(strings.reduce((out, part, i) => out + part + (i < values.length ? encode(values[i]) : ''), ''));
}
