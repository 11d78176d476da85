/**
 * The admin top-up request as the wallet receives it (parseTopUp): major units become exact minor
 * units or a field error, never a rounded amount, and a top-up without a reference gets one.
 */
import { ValidationFailed } from '../validation';
import { parseTopUp } from './wallets.controller';

const fieldErrors = (body: unknown, options?: { operatorCredit: boolean }) => {
  try {
    parseTopUp(body, options);
  } catch (error) {
    if (error instanceof ValidationFailed) return error.errors;
    throw error;
  }
  throw new Error('the top-up was accepted');
};

describe('a wallet top-up request', () => {
  it.each([
    ['UGX', 250_000, 250_000],
    ['USD', 12.5, 1_250],
    ['KES', 0.01, 1],
  ])('takes %s %d as %i minor units', (currency, amount, minor) => {
    expect(parseTopUp({ merchant_id: 'mer_7Hc2kq9Z', currency, amount, reference: 'topup-1' })).toEqual({
      merchantId: 'mer_7Hc2kq9Z',
      currency,
      amount: minor,
      reference: 'topup-1',
    });
  });

  it('generates a reference when none is given, a new one for each top-up', () => {
    const body = { merchant_id: 'mer_7Hc2kq9Z', currency: 'UGX', amount: 1000 };
    const [first, second] = [parseTopUp(body), parseTopUp(body)];
    expect(first.reference).toMatch(/^[0-9a-f-]{36}$/);
    expect(second.reference).not.toBe(first.reference);
  });

  it.each([
    ['more decimals than the currency has', { currency: 'UGX', amount: 100.5 }, 'amount UGX amounts have no decimals'],
    ['nothing to add', { currency: 'USD', amount: 0 }, 'amount must be greater than 0'],
    ['an amount sent as a string', { currency: 'UGX', amount: '1000' }, 'amount must be a number in major units'],
  ])('refuses %s, naming amount', (_case, fields, message) => {
    expect(fieldErrors({ merchant_id: 'mer_7Hc2kq9Z', ...fields })).toEqual([{ field: 'amount', message }]);
  });

  it('names every bad field at once', () => {
    expect(
      fieldErrors({ merchant_id: ' ', currency: 'EUR', amount: 10, reference: 'has spaces', note: 'x' }).map(
        (error) => error.field,
      ),
    ).toEqual(['note', 'merchant_id', 'currency', 'reference']);
  });

  it.each([
    ['an array', []],
    ['null', null],
    ['text', 'top up'],
  ])('refuses %s as the body', (_what, body) => {
    expect(fieldErrors(body)).toEqual([{ field: 'body', message: 'the request body must be a JSON object' }]);
  });

  describe("an operator's credit: who and why", () => {
    const body = { merchant_id: 'mer_7Hc2kq9Z', currency: 'UGX', amount: 1000, reference: 'float-11' };
    const live = { operatorCredit: true };

    it('carries operator and reason into the command, trimmed', () => {
      expect(parseTopUp({ ...body, operator: ' ops@paygate.example ', reason: 'November float ' }, live)).toEqual({
        merchantId: 'mer_7Hc2kq9Z',
        currency: 'UGX',
        amount: 1000,
        reference: 'float-11',
        operator: 'ops@paygate.example',
        reason: 'November float',
      });
    });

    it('a live deployment requires both, naming each field that is missing', () => {
      expect(fieldErrors(body, live)).toEqual([
        {
          field: 'operator',
          message: 'operator in a live deployment must name who credits the wallet: 1 to 64 characters',
        },
        {
          field: 'reason',
          message: 'reason in a live deployment must say why the wallet is credited: 1 to 200 characters',
        },
      ]);
      expect(fieldErrors({ ...body, operator: 'ops' }, live).map((error) => error.field)).toEqual(['reason']);
    });

    it('a test deployment takes a top-up without them, but not one of the two alone', () => {
      expect(parseTopUp(body)).not.toHaveProperty('operator');
      expect(fieldErrors({ ...body, reason: 'float' }).map((error) => error.field)).toEqual(['operator']);
    });

    it.each([
      ['blank', { operator: '  ', reason: 'float' }, 'operator'],
      ['too long', { operator: 'o'.repeat(65), reason: 'float' }, 'operator'],
      ['not text', { operator: 'ops', reason: 42 }, 'reason'],
      ['a control character', { operator: 'ops', reason: 'float\u0000' }, 'reason'],
    ])('refuses %s', (_case, fields, field) => {
      expect(fieldErrors({ ...body, ...fields }, live).map((error) => error.field)).toEqual([field]);
    });
  });
});
