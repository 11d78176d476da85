import {
  CURRENCIES,
  chargesLeaveCredit,
  computeCharges,
  computeFee,
  FeeRule,
  formatMoney,
  isSupportedCurrency,
  minorUnitsOf,
  parseFeeSchedule,
  toMajorUnits,
  toMinorUnits,
} from './index';

describe('currencies', () => {
  it.each([
    ['UGX', 0],
    ['RWF', 0],
    ['KES', 2],
    ['TZS', 2],
    ['USD', 2],
  ])('%s has %i minor digits', (code, digits) => {
    expect(isSupportedCurrency(code)).toBe(true);
    expect(CURRENCIES[code].minorUnits).toBe(digits);
    expect(minorUnitsOf(code)).toBe(digits);
  });

  it.each(['EUR', 'ugx', '', 'constructor', '__proto__', 'toString'])('%p is not supported', (code) => {
    expect(isSupportedCurrency(code)).toBe(false);
    expect(() => minorUnitsOf(code)).toThrow(/Unsupported currency/);
  });

  it('cannot be mutated at runtime', () => {
    expect(Object.isFrozen(CURRENCIES)).toBe(true);
    expect(Object.isFrozen(CURRENCIES['USD'])).toBe(true);
  });
});

describe('toMinorUnits', () => {
  it.each<[number, string, number]>([
    [81000, 'UGX', 81000],
    [1, 'UGX', 1],
    [8100000, 'RWF', 8100000],
    [1.1, 'USD', 110],
    [0.29, 'USD', 29],
    [1.15, 'USD', 115], // 1.15 * 100 === 114.99999999999999
    [4.35, 'USD', 435], // 4.35 * 100 === 434.99999999999994
    [0.07, 'KES', 7], // 0.07 * 100 === 7.000000000000001
    [0.01, 'TZS', 1],
    [12.5, 'USD', 1250],
    [1234.5, 'USD', 123450],
    [100, 'USD', 10000],
    [1e15, 'UGX', 1e15],
    [Number.MAX_SAFE_INTEGER, 'UGX', Number.MAX_SAFE_INTEGER],
    [90071992547409.9, 'USD', 9007199254740990],
  ])('%p %s -> %p', (amount, currency, minor) => {
    expect(toMinorUnits(amount, currency)).toEqual({ ok: true, minor });
  });

  it.each<[unknown, string, string]>([
    [0, 'UGX', 'must be greater than 0'],
    [-0, 'USD', 'must be greater than 0'],
    [-5, 'USD', 'must be greater than 0'],
    [NaN, 'USD', 'must be a finite number'],
    [Infinity, 'UGX', 'must be a finite number'],
    [-Infinity, 'UGX', 'must be a finite number'],
    ['100', 'UGX', 'must be a number'],
    [null, 'UGX', 'must be a number'],
    [100.5, 'UGX', 'UGX amounts have no decimals'],
    [0.5, 'RWF', 'RWF amounts have no decimals'],
    [1.005, 'USD', 'USD amounts have at most 2 decimals'],
    [0.1 + 0.2, 'USD', 'USD amounts have at most 2 decimals'], // 0.30000000000000004
    [0.001, 'KES', 'KES amounts have at most 2 decimals'],
    // exponent notation: String() gives "1e-7" / "1.5e-7" / "5e-324"
    [1e-7, 'USD', 'USD amounts have at most 2 decimals'],
    [1.5e-7, 'UGX', 'UGX amounts have no decimals'],
    [5e-324, 'USD', 'USD amounts have at most 2 decimals'],
    // "1e21" has no decimals at all; it must fail for size, not be read as 1
    [1e21, 'UGX', 'is too large'],
    [1.5e21, 'USD', 'is too large'],
    [Number.MAX_VALUE, 'UGX', 'is too large'],
    [Number.MAX_SAFE_INTEGER + 1, 'UGX', 'is too large'],
    [Number.MAX_SAFE_INTEGER, 'USD', 'is too large'],
    [100, 'EUR', 'unsupported currency "EUR"'],
  ])('rejects %p %s: %s', (amount, currency, reason) => {
    expect(toMinorUnits(amount as number, currency)).toEqual({ ok: false, reason });
  });

  it('reads amounts as JSON.parse produces them', () => {
    const body = JSON.parse('{"a": 1.10, "b": 2e3, "c": 1E2, "d": 0.290}') as Record<string, number>;
    expect(toMinorUnits(body['a'], 'USD')).toEqual({ ok: true, minor: 110 });
    expect(toMinorUnits(body['b'], 'UGX')).toEqual({ ok: true, minor: 2000 });
    expect(toMinorUnits(body['c'], 'USD')).toEqual({ ok: true, minor: 10000 });
    expect(toMinorUnits(body['d'], 'USD')).toEqual({ ok: true, minor: 29 });
  });

  it('round-trips every cent from 0.01 to 100.00 and a spread of large amounts', () => {
    const minors: number[] = [];
    for (let m = 1; m <= 10_000; m++) minors.push(m);
    // 10^15 - 1 is the largest 15-digit amount; doubles keep 15 significant digits exactly.
    for (let m = 999_999_999_999_999; m > 10_000; m = Math.floor(m / 7)) minors.push(m);
    for (const minor of minors) {
      const major = toMajorUnits(minor, 'USD');
      // the decimal string is what a client would send for that amount
      const fromString = Number(`${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, '0')}`);
      expect(major).toBe(fromString);
      expect(toMinorUnits(major, 'USD')).toEqual({ ok: true, minor });
    }
  });
});

describe('toMajorUnits', () => {
  it.each<[number, string, number]>([
    [8100000, 'UGX', 8100000],
    [1250, 'USD', 12.5],
    [123450, 'KES', 1234.5],
    [1, 'TZS', 0.01],
    [29, 'USD', 0.29],
    [0, 'USD', 0],
  ])('%p %s -> %p', (minor, currency, major) => {
    expect(toMajorUnits(minor, currency)).toBe(major);
  });

  it.each([1.5, NaN, Number.MAX_SAFE_INTEGER + 1])('rejects non-integer minor %p', (minor) => {
    expect(() => toMajorUnits(minor, 'USD')).toThrow(RangeError);
  });

  it('rejects unsupported currencies', () => {
    expect(() => toMajorUnits(1, 'EUR')).toThrow(/Unsupported currency/);
  });
});

describe('formatMoney', () => {
  it.each<[number, string, string]>([
    [81000, 'UGX', 'UGX 81,000'],
    [8100000, 'RWF', 'RWF 8,100,000'],
    [0, 'UGX', 'UGX 0'],
    [999, 'UGX', 'UGX 999'],
    [1000, 'UGX', 'UGX 1,000'],
    [123450, 'USD', 'USD 1,234.50'],
    [0, 'USD', 'USD 0.00'],
    [5, 'KES', 'KES 0.05'],
    [100, 'TZS', 'TZS 1.00'],
    [100000000, 'USD', 'USD 1,000,000.00'],
    [-123450, 'USD', 'USD -1,234.50'],
    [Number.MAX_SAFE_INTEGER, 'USD', 'USD 90,071,992,547,409.91'],
  ])('%p %s -> %p', (minor, currency, text) => {
    expect(formatMoney(minor, currency)).toBe(text);
  });

  it('rejects fractional minor units', () => {
    expect(() => formatMoney(1.5, 'USD')).toThrow(RangeError);
  });
});

describe('parseFeeSchedule', () => {
  it.each<[unknown, string, FeeRule]>([
    [{ percent: 1.5 }, 'UGX', { ratePerMillion: 15000, fixedMinor: 0 }],
    [{ percent: 0 }, 'UGX', { ratePerMillion: 0, fixedMinor: 0 }],
    [{ percent: 100 }, 'USD', { ratePerMillion: 1_000_000, fixedMinor: 0 }],
    [{ percent: 0.0001 }, 'USD', { ratePerMillion: 1, fixedMinor: 0 }],
    [{ percent: 2.9999 }, 'USD', { ratePerMillion: 29999, fixedMinor: 0 }],
    [{ percent: 1.15 }, 'USD', { ratePerMillion: 11500, fixedMinor: 0 }],
    [{ percent: 2.5, fixed: 500 }, 'UGX', { ratePerMillion: 25000, fixedMinor: 500 }],
    [{ percent: 3, fixed: 0.3 }, 'USD', { ratePerMillion: 30000, fixedMinor: 30 }],
    [
      { percent: 1, fixed: 0.5, min: 1.25, max: 10 },
      'KES',
      { ratePerMillion: 10000, fixedMinor: 50, minMinor: 125, maxMinor: 1000 },
    ],
    [{ percent: 1, min: 500, max: 500 }, 'UGX', { ratePerMillion: 10000, fixedMinor: 0, minMinor: 500, maxMinor: 500 }],
    [{ percent: 1, fixed: null, min: null, max: null }, 'UGX', { ratePerMillion: 10000, fixedMinor: 0 }],
    [{ percent: 1, min: 0 }, 'UGX', { ratePerMillion: 10000, fixedMinor: 0, minMinor: 0 }],
  ])('%j in %s', (raw, currency, rule) => {
    expect(parseFeeSchedule(raw, currency)).toEqual(rule);
  });

  it.each<[unknown, string, RegExp]>([
    [null, 'UGX', /must be an object/],
    [[1.5], 'UGX', /must be an object/],
    [1.5, 'UGX', /must be an object/],
    [{}, 'UGX', /percent must be a finite number/],
    [{ percent: '1.5' }, 'UGX', /percent must be a finite number/],
    [{ percent: NaN }, 'UGX', /percent must be a finite number/],
    [{ percent: -0.5 }, 'UGX', /percent must be between 0 and 100/],
    [{ percent: 100.0001 }, 'UGX', /percent must be between 0 and 100/],
    [{ percent: 1.00001 }, 'UGX', /percent must have at most 4 decimals/],
    [{ percent: 1e-7 }, 'UGX', /percent must have at most 4 decimals/],
    [{ percent: 1, fixed: -1 }, 'UGX', /fixed must not be negative/],
    [{ percent: 1, fixed: 0.5 }, 'UGX', /fixed must be a whole number \(UGX has no decimals\)/],
    [{ percent: 1, fixed: 0.005 }, 'USD', /fixed must have at most 2 decimals for USD/],
    [{ percent: 1, fixed: '5' }, 'USD', /fixed must be a finite number/],
    [{ percent: 1, min: Infinity }, 'USD', /min must be a finite number/],
    [{ percent: 1, max: 1e21 }, 'UGX', /max is too large/],
    [{ percent: 1, min: 10, max: 5 }, 'UGX', /min \(10\) must not be greater than max \(5\)/],
    [{ percent: 1, maximum: 5 }, 'UGX', /unknown field "maximum"/],
    [{ percent: 1 }, 'EUR', /Unsupported currency "EUR"/],
  ])('rejects %j in %s', (raw, currency, message) => {
    expect(() => parseFeeSchedule(raw, currency)).toThrow(message);
  });

  it('names the currency in the message', () => {
    expect(() => parseFeeSchedule({ percent: 1, fixed: 0.5 }, 'RWF')).toThrow(/^Invalid RWF fee schedule: fixed/);
  });
});

const pct = (ratePerMillion: number, extra: Partial<FeeRule> = {}): FeeRule => ({
  ratePerMillion,
  fixedMinor: 0,
  ...extra,
});

describe('computeFee', () => {
  it.each<[string, number, FeeRule, number]>([
    // half-up at exactly .5
    ['1.5% of 100 = 1.5', 100, pct(15000), 2],
    ['2.5% of 100 = 2.5', 100, pct(25000), 3],
    ['1% of 50 = 0.5', 50, pct(10000), 1],
    ['1% of 150 = 1.5', 150, pct(10000), 2],
    ['0.0001% of 500000 = 0.5', 500000, pct(1), 1],
    // just either side of .5
    ['1% of 49 = 0.49', 49, pct(10000), 0],
    ['1% of 51 = 0.51', 51, pct(10000), 1],
    ['1.5% of 99 = 1.485', 99, pct(15000), 1],
    ['0.0001% of 499999 = 0.499999', 499999, pct(1), 0],
    ['0.0001% of 500001 = 0.500001', 500001, pct(1), 1],
    // exact
    ['1.5% of 8100000', 8100000, pct(15000), 121500],
    ['0% of 1000', 1000, pct(0), 0],
    ['100% of 1234', 1234, pct(1_000_000), 1234],
    ['0% of 0', 0, pct(0), 0],
    // fixed part added after rounding
    ['2.5% of 100 + 500 fixed', 100, pct(25000, { fixedMinor: 500 }), 503],
    ['0% + 30 fixed', 1000, pct(0, { fixedMinor: 30 }), 30],
    // clamping
    ['1% of 1000 = 10, min 500', 1000, pct(10000, { minMinor: 500 }), 500],
    ['1% of 100000 = 1000, max 700', 100000, pct(10000, { maxMinor: 700 }), 700],
    ['1% of 50000 = 500, within [100, 700]', 50000, pct(10000, { minMinor: 100, maxMinor: 700 }), 500],
    ['min applies to percent + fixed', 1000, pct(10000, { fixedMinor: 50, minMinor: 59 }), 60],
    ['min == max pins the fee', 123456, pct(10000, { minMinor: 250, maxMinor: 250 }), 250],
    ['max below fixed caps it', 100, pct(0, { fixedMinor: 300, maxMinor: 200 }), 200],
    // amount * rate beyond 2^53 needs BigInt
    [
      '1.2345% of MAX_SAFE_INTEGER',
      Number.MAX_SAFE_INTEGER,
      pct(12345),
      Number((BigInt(Number.MAX_SAFE_INTEGER) * 12345n + 500000n) / 1000000n),
    ],
  ])('%s: amount %p, rule %j -> %p', (_label, amount, rule, fee) => {
    expect(computeFee(amount, rule)).toBe(fee);
  });

  it.each<[number, FeeRule]>([
    [-1, pct(10000)],
    [1.5, pct(10000)],
    [NaN, pct(10000)],
    [100, pct(1.5)],
    [100, pct(1_000_001)],
    [100, pct(10000, { fixedMinor: -1 })],
    [100, pct(10000, { minMinor: 10, maxMinor: 5 })],
  ])('rejects amount %p with rule %j', (amount, rule) => {
    expect(() => computeFee(amount, rule)).toThrow(RangeError);
  });

  it('works end to end from a configured schedule', () => {
    const rule = parseFeeSchedule({ percent: 2.9, fixed: 0.3, min: 0.5, max: 50 }, 'USD');
    expect(computeFee(toMinor(10, 'USD'), rule)).toBe(59); // 29 + 30
    expect(computeFee(toMinor(0.5, 'USD'), rule)).toBe(50); // 1.45 -> 1, + 30 = 31, min 50
    expect(computeFee(toMinor(5000, 'USD'), rule)).toBe(5000); // 14500 + 30, max 5000
  });
});

describe('computeCharges', () => {
  const rule = pct(15000, { fixedMinor: 100, minMinor: 500 });

  it('merchant absorbs the fee', () => {
    const charges = computeCharges(100000, rule, false);
    expect(charges).toEqual({ fee: 1600, transactionAmount: 100000, totalCredit: 98400 });
    expect(chargesLeaveCredit(charges)).toBe(true);
  });

  it('customer pays the fee on top', () => {
    const charges = computeCharges(100000, rule, true);
    expect(charges).toEqual({ fee: 1600, transactionAmount: 101600, totalCredit: 100000 });
    expect(chargesLeaveCredit(charges)).toBe(true);
  });

  it.each<[number, number, boolean]>([
    [400, -100, false], // fee (min 500) exceeds amount
    [500, 0, false], // fee equals amount
    [501, 1, true],
  ])('amount %p absorbed leaves credit %p', (amount, credit, leaves) => {
    const charges = computeCharges(amount, rule, false);
    expect(charges.totalCredit).toBe(credit);
    expect(chargesLeaveCredit(charges)).toBe(leaves);
    // charging the customer instead always leaves the full amount
    expect(chargesLeaveCredit(computeCharges(amount, rule, true))).toBe(true);
  });

  it('rejects a total beyond MAX_SAFE_INTEGER when the customer pays', () => {
    expect(() => computeCharges(Number.MAX_SAFE_INTEGER, pct(10000), true)).toThrow(RangeError);
  });

  it('keeps transactionAmount === totalCredit + fee and matches a float-free oracle', () => {
    const rules: FeeRule[] = [
      pct(0),
      pct(1),
      pct(10000),
      pct(15000),
      pct(25000),
      pct(29999, { fixedMinor: 30 }),
      pct(35000, { fixedMinor: 100, minMinor: 500, maxMinor: 5000 }),
      pct(1_000_000),
      pct(0, { fixedMinor: 250 }),
    ];
    const amounts: number[] = [];
    for (let a = 1; a <= 2000; a++) amounts.push(a);
    for (let a = 2001; a < 1_000_000; a = Math.floor(a * 1.37) + 1) amounts.push(a);
    let checked = 0;
    const failures: unknown[] = [];
    for (const rule of rules) {
      for (const amount of amounts) {
        // amount * rate stays below 2^53 here, so plain integer maths is an exact oracle.
        let expectedFee = Math.floor((amount * rule.ratePerMillion + 500_000) / 1_000_000) + rule.fixedMinor;
        if (rule.minMinor !== undefined) expectedFee = Math.max(expectedFee, rule.minMinor);
        if (rule.maxMinor !== undefined) expectedFee = Math.min(expectedFee, rule.maxMinor);
        for (const chargeCustomer of [false, true]) {
          const c = computeCharges(amount, rule, chargeCustomer);
          const ok =
            c.fee === expectedFee &&
            c.transactionAmount === c.totalCredit + c.fee &&
            (chargeCustomer ? c.totalCredit : c.transactionAmount) === amount &&
            Number.isSafeInteger(c.totalCredit);
          // one expect per case would make this loop take seconds; collect and report instead
          if (!ok) failures.push({ amount, rule, chargeCustomer, charges: c, expectedFee });
          checked++;
        }
      }
    }
    expect(failures.slice(0, 5)).toEqual([]);
    expect(checked).toBeGreaterThan(30_000);
  });
});

function toMinor(amount: number, currency: string): number {
  const result = toMinorUnits(amount, currency);
  if (!result.ok) throw new Error(result.reason);
  return result.minor;
}
