import { CurrencyCode, minorUnitsOf } from './currency';
import { MAX_SAFE, scaleDecimal } from './decimal';

/** Fee schedule as written in configuration; fixed/min/max are in MAJOR units of the currency. */
export interface FeeSchedule {
  /** Percentage of the amount, e.g. 1.5 for 1.5 %. At most 4 decimals. */
  percent: number;
  fixed?: number;
  min?: number;
  max?: number;
}

/** Validated, integer-only form of a FeeSchedule for one currency. */
export interface FeeRule {
  /** Percent rate in parts per million: 1.5 % -> 15000. */
  ratePerMillion: number;
  fixedMinor: number;
  minMinor?: number;
  maxMinor?: number;
}

export interface Charges {
  fee: number;
  /** What the customer is debited. */
  transactionAmount: number;
  /** What the merchant is credited. */
  totalCredit: number;
}

// 4 percent decimals = parts per million, so every valid rate is an exact integer.
const PERCENT_DECIMALS = 4;
const PER_MILLION = 1_000_000n;
const HALF_MILLION = PER_MILLION / 2n;
const KNOWN_FIELDS = new Set(['percent', 'fixed', 'min', 'max']);

/**
 * Validates a configured fee schedule and converts it to integer minor units for `currency`.
 * Throws an Error naming the offending field.
 */
export function parseFeeSchedule(raw: unknown, currency: CurrencyCode): FeeRule {
  const exponent = minorUnitsOf(currency);
  const fail = (message: string): never => {
    throw new Error(`Invalid ${currency} fee schedule: ${message}`);
  };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return fail('must be an object like { "percent": 1.5 }');
  }
  const record = raw as Record<string, unknown>;
  // A misspelt "maximum" would otherwise be silently ignored and the fee left unclamped.
  for (const key of Object.keys(record)) {
    if (!KNOWN_FIELDS.has(key)) {
      fail(`unknown field "${key}" (allowed: percent, fixed, min, max)`);
    }
  }

  const percent = record['percent'];
  if (typeof percent !== 'number' || !Number.isFinite(percent)) {
    return fail('percent must be a finite number');
  }
  if (percent < 0 || percent > 100) {
    return fail(`percent must be between 0 and 100, got ${percent}`);
  }
  const rate = scaleDecimal(percent, PERCENT_DECIMALS);
  if (rate === null) {
    return fail(`percent must have at most ${PERCENT_DECIMALS} decimals, got ${percent}`);
  }

  const majorToMinor = (field: string): number | undefined => {
    const value = record[field];
    // JSON configs often spell "not set" as null.
    if (value === undefined || value === null) {
      return undefined;
    }
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      return fail(`${field} must be a finite number`);
    }
    if (value < 0) {
      return fail(`${field} must not be negative, got ${value}`);
    }
    const minor = scaleDecimal(value, exponent);
    if (minor === null) {
      return fail(
        exponent === 0
          ? `${field} must be a whole number (${currency} has no decimals), got ${value}`
          : `${field} must have at most ${exponent} decimals for ${currency}, got ${value}`,
      );
    }
    if (minor > MAX_SAFE) {
      return fail(`${field} is too large, got ${value}`);
    }
    return Number(minor);
  };

  const fixedMinor = majorToMinor('fixed') ?? 0;
  const minMinor = majorToMinor('min');
  const maxMinor = majorToMinor('max');
  if (minMinor !== undefined && maxMinor !== undefined && minMinor > maxMinor) {
    fail(`min (${record['min']}) must not be greater than max (${record['max']})`);
  }

  const rule: FeeRule = { ratePerMillion: Number(rate), fixedMinor };
  if (minMinor !== undefined) rule.minMinor = minMinor;
  if (maxMinor !== undefined) rule.maxMinor = maxMinor;
  return rule;
}

/**
 * Fee in minor units: percent part rounded half-up to the minor unit, plus fixed, clamped to
 * [min, max]. BigInt throughout because amount * rate can exceed 2^53.
 */
export function computeFee(amountMinor: number, rule: FeeRule): number {
  assertMinor(amountMinor, 'amountMinor');
  assertRule(rule);
  const amount = BigInt(amountMinor);
  // Operands are non-negative, so adding half before the floor division is half-up.
  const percentPart = (amount * BigInt(rule.ratePerMillion) + HALF_MILLION) / PER_MILLION;
  let fee = percentPart + BigInt(rule.fixedMinor);
  if (rule.minMinor !== undefined && fee < BigInt(rule.minMinor)) fee = BigInt(rule.minMinor);
  if (rule.maxMinor !== undefined && fee > BigInt(rule.maxMinor)) fee = BigInt(rule.maxMinor);
  if (fee > MAX_SAFE) {
    throw new RangeError(`fee for amount ${amountMinor} exceeds Number.MAX_SAFE_INTEGER`);
  }
  return Number(fee);
}

/**
 * Splits an amount into what the customer pays and what the merchant receives.
 * chargeCustomer=false: the merchant absorbs the fee. chargeCustomer=true: the fee is added on
 * top for the customer. transactionAmount === totalCredit + fee in both cases.
 * totalCredit may be <= 0 when the merchant absorbs a fee at least as large as the amount;
 * check chargesLeaveCredit() before accepting.
 */
export function computeCharges(amountMinor: number, rule: FeeRule, chargeCustomer: boolean): Charges {
  const fee = computeFee(amountMinor, rule);
  if (!chargeCustomer) {
    return { fee, transactionAmount: amountMinor, totalCredit: amountMinor - fee };
  }
  const transactionAmount = amountMinor + fee;
  if (!Number.isSafeInteger(transactionAmount)) {
    throw new RangeError(`amount ${amountMinor} plus fee ${fee} exceeds Number.MAX_SAFE_INTEGER`);
  }
  return { fee, transactionAmount, totalCredit: amountMinor };
}

/** True when the merchant would actually receive something. */
export function chargesLeaveCredit(charges: Charges): boolean {
  return charges.totalCredit > 0;
}

function assertMinor(value: number, name: string): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${name} must be a non-negative safe integer, got ${value}`);
  }
}

// FeeRule is a plain interface, so a hand-built rule gets the same integer guarantees.
function assertRule(rule: FeeRule): void {
  assertMinor(rule.ratePerMillion, 'ratePerMillion');
  if (rule.ratePerMillion > Number(PER_MILLION)) {
    throw new RangeError(`ratePerMillion must be at most ${PER_MILLION}, got ${rule.ratePerMillion}`);
  }
  assertMinor(rule.fixedMinor, 'fixedMinor');
  if (rule.minMinor !== undefined) assertMinor(rule.minMinor, 'minMinor');
  if (rule.maxMinor !== undefined) assertMinor(rule.maxMinor, 'maxMinor');
  if (rule.minMinor !== undefined && rule.maxMinor !== undefined && rule.minMinor > rule.maxMinor) {
    throw new RangeError(`minMinor ${rule.minMinor} is greater than maxMinor ${rule.maxMinor}`);
  }
}
