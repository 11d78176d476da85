// Internal helpers shared by amount parsing and fee-schedule parsing.

const NUMBER_STRING = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/;

/**
 * Exact value of `value * 10^scale` as a BigInt, or null when `value` has more than `scale`
 * decimals. The decimals are read from String(value), which is the shortest string that
 * round-trips to the same double, i.e. what the sender most plausibly wrote. Multiplying the
 * double instead would turn 1.15 * 100 into 114.99999999999999.
 */
export function scaleDecimal(value: number, scale: number): bigint | null {
  if (!Number.isFinite(value)) {
    throw new RangeError(`scaleDecimal needs a finite number, got ${value}`);
  }
  // String() switches to exponent notation below 1e-6 and from 1e21 upwards.
  const match = NUMBER_STRING.exec(String(value));
  if (match === null) {
    throw new Error(`Unexpected number format: ${String(value)}`);
  }
  const [, sign, intDigits, fracDigits = '', expDigits = '0'] = match;
  let mantissa = BigInt(intDigits + fracDigits);
  let exponent = Number(expDigits) - fracDigits.length;
  while (exponent < 0 && mantissa !== 0n && mantissa % 10n === 0n) {
    mantissa /= 10n;
    exponent += 1;
  }
  if (mantissa === 0n) {
    return 0n;
  }
  if (-exponent > scale) {
    return null;
  }
  const scaled = mantissa * 10n ** BigInt(exponent + scale);
  return sign === '-' ? -scaled : scaled;
}

export const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Inserts comma thousands separators into a string of ASCII digits. */
export function groupThousands(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+$)/g, ',');
}
