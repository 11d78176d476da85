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

/** A decimal amount ("81000", "12.5") in hundredths, so amounts add up exactly. */
export function hundredths(amount: string): number {
  const [whole, fraction = ''] = amount.split('.');
  return Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
}
