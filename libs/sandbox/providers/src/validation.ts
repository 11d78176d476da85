export function isHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

/** Providers take amounts as decimal strings in major units, e.g. "81000" or "12.50". */
export function isAmount(value: unknown): value is string {
  return typeof value === 'string' && /^\d{1,15}(\.\d{1,2})?$/.test(value) && Number(value) > 0;
}
