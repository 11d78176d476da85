import { CurrencyCode, isSupportedCurrency, minorUnitsOf } from './currency';
import { groupThousands, MAX_SAFE, scaleDecimal } from './decimal';

export type MinorUnitsResult = { ok: true; minor: number } | { ok: false; reason: string };

/**
 * Converts a major-unit amount as received in JSON (e.g. 12.5 USD) to integer minor units
 * (1250). Rejects rather than rounds: an amount with more decimals than the currency has is a
 * client error, not something to guess about.
 */
export function toMinorUnits(amount: number, currency: CurrencyCode): MinorUnitsResult {
  if (!isSupportedCurrency(currency)) {
    return { ok: false, reason: `unsupported currency ${JSON.stringify(currency)}` };
  }
  // Callers pass JSON.parse output, so the static type is not a guarantee.
  if (typeof amount !== 'number') {
    return { ok: false, reason: 'must be a number' };
  }
  if (!Number.isFinite(amount)) {
    return { ok: false, reason: 'must be a finite number' };
  }
  if (amount <= 0) {
    return { ok: false, reason: 'must be greater than 0' };
  }
  const exponent = minorUnitsOf(currency);
  const minor = scaleDecimal(amount, exponent);
  if (minor === null) {
    return { ok: false, reason: decimalsReason(currency, exponent) };
  }
  if (minor > MAX_SAFE) {
    return { ok: false, reason: 'is too large' };
  }
  return { ok: true, minor: Number(minor) };
}

function decimalsReason(currency: CurrencyCode, exponent: number): string {
  if (exponent === 0) {
    return `${currency} amounts have no decimals`;
  }
  return `${currency} amounts have at most ${exponent} decimal${exponent === 1 ? '' : 's'}`;
}

/**
 * Major-unit number for JSON output (1250 USD minor -> 12.5). The division is correctly
 * rounded, so toMinorUnits(toMajorUnits(m)) === m for every m below 10^15, where a double
 * still holds every 15-digit decimal exactly enough to round-trip.
 */
export function toMajorUnits(minor: number, currency: CurrencyCode): number {
  assertSafeInteger(minor, 'minor');
  return minor / 10 ** minorUnitsOf(currency);
}

/** Human-readable amount: "UGX 81,000", "USD 1,234.50", "USD -0.05". */
export function formatMoney(minor: number, currency: CurrencyCode): string {
  assertSafeInteger(minor, 'minor');
  const exponent = minorUnitsOf(currency);
  // Work on the digit string so no float ever touches the minor digits.
  const digits = String(Math.abs(minor)).padStart(exponent + 1, '0');
  const whole = groupThousands(digits.slice(0, digits.length - exponent));
  const fraction = exponent > 0 ? `.${digits.slice(digits.length - exponent)}` : '';
  return `${currency} ${minor < 0 ? '-' : ''}${whole}${fraction}`;
}

function assertSafeInteger(value: number, name: string): void {
  if (!Number.isSafeInteger(value)) {
    throw new RangeError(`${name} must be a safe integer, got ${value}`);
  }
}

export type RequestedAmount =
  { ok: true; minor: number } | { ok: false; field: 'currency' | 'amount'; message: string };

/**
 * A request's currency and major-unit amount (as parsed from JSON) in minor units, or the field the
 * caller must fix and why: major units only mean something in a known currency.
 */
export function requestedAmount(currency: unknown, amount: unknown): RequestedAmount {
  if (!isSupportedCurrency(currency)) {
    return { ok: false, field: 'currency', message: 'currency must be a supported currency code (e.g. UGX)' };
  }
  if (typeof amount !== 'number')
    return { ok: false, field: 'amount', message: 'amount must be a number in major units' };
  const converted = toMinorUnits(amount, currency);
  return converted.ok ? converted : { ok: false, field: 'amount', message: `amount ${converted.reason}` };
}
