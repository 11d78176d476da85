/** ISO 4217 alphabetic code, e.g. "UGX". Kept as a plain string so JSON input needs no casting. */
export type CurrencyCode = string;

export interface CurrencyInfo {
  /** ISO 4217 minor-unit exponent: number of decimals a major amount may carry. */
  readonly minorUnits: number;
}

/** Currencies the gateway settles in, with their ISO 4217 exponents. */
export const CURRENCIES: Readonly<Record<CurrencyCode, CurrencyInfo>> = Object.freeze({
  UGX: Object.freeze({ minorUnits: 0 }),
  RWF: Object.freeze({ minorUnits: 0 }),
  KES: Object.freeze({ minorUnits: 2 }),
  TZS: Object.freeze({ minorUnits: 2 }),
  USD: Object.freeze({ minorUnits: 2 }),
});

export function isSupportedCurrency(code: unknown): code is CurrencyCode {
  // hasOwn, so inherited keys like "constructor" or "__proto__" never count as currencies.
  return typeof code === 'string' && Object.hasOwn(CURRENCIES, code);
}

/** Exponent of a supported currency; throws for anything else so callers cannot silently assume 2. */
export function minorUnitsOf(currency: CurrencyCode): number {
  if (!isSupportedCurrency(currency)) {
    throw new RangeError(`Unsupported currency ${JSON.stringify(currency)}`);
  }
  return CURRENCIES[currency].minorUnits;
}
