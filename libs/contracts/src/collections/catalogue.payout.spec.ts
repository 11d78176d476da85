import { CatalogueError, parseProviderCatalogue } from './catalogue';

const momo = (payout: unknown, overrides: Record<string, unknown> = {}) => ({
  provider_code: 'mtn_momo_ug',
  provider_name: 'MTN',
  transaction_method: 'MOBILE_MONEY',
  transaction_currency: 'UGX',
  country_code: 'UG',
  calling_code: '256',
  prefixes: ['77'],
  min_amount: 500,
  max_amount: 5_000_000,
  fee: { percent: 1.5 },
  ...(payout !== undefined && { payout }),
  ...overrides,
});

describe("a provider's payout terms in the catalogue", () => {
  it('limits and fee in minor units; a provider without them takes no payouts', () => {
    const catalogue = parseProviderCatalogue({
      providers: [
        momo({ min_amount: 1000, max_amount: 2_000_000, fee: { percent: 1, min: 500 } }),
        momo(undefined, { provider_code: 'airtel_money_ug' }),
      ],
    });
    expect(catalogue.get('mtn_momo_ug')?.payout).toEqual({
      minAmount: 1000,
      maxAmount: 2_000_000,
      fee: { ratePerMillion: 10_000, fixedMinor: 0, minMinor: 500 },
    });
    expect(catalogue.get('airtel_money_ug')?.payout).toBeUndefined();
  });

  it.each([
    ['not an object', 'flat', /payout must be an object/],
    ['a minimum above the maximum', { min_amount: 5000, max_amount: 1000, fee: { percent: 1 } }, /min_amount/],
    ['a bad fee', { min_amount: 1000, max_amount: 5000, fee: { percent: 'one' } }, /payout\.fee/],
    ['no maximum', { min_amount: 1000, fee: { percent: 1 } }, /payout\.max_amount/],
  ])('refuses %s, naming where', (_what, payout, message) => {
    expect(() => parseProviderCatalogue({ providers: [momo(payout)] })).toThrow(CatalogueError);
    expect(() => parseProviderCatalogue({ providers: [momo(payout)] })).toThrow(message);
  });

  it('refuses payout terms on a card provider', () => {
    const card = momo(
      { min_amount: 1000, max_amount: 5000, fee: { percent: 1 } },
      { transaction_method: 'CARD', calling_code: undefined, prefixes: [] },
    );
    expect(() => parseProviderCatalogue({ providers: [card] })).toThrow(/MOBILE_MONEY providers only/);
  });
});

describe('a provider that refunds only whole payments', () => {
  it('says so with "partial_refunds": false; without it, parts are refunded too', () => {
    const catalogue = parseProviderCatalogue({
      providers: [momo(undefined, { partial_refunds: false }), momo(undefined, { provider_code: 'airtel_money_ug' })],
    });
    expect(catalogue.get('mtn_momo_ug')?.fullRefundsOnly).toBe(true);
    expect(catalogue.get('airtel_money_ug')?.fullRefundsOnly).toBeUndefined();
  });

  it('refuses a partial_refunds that is not true or false, naming where', () => {
    expect(() => parseProviderCatalogue({ providers: [momo(undefined, { partial_refunds: 'no' })] })).toThrow(
      /providers\[0\]\.partial_refunds must be true or false/,
    );
  });
});
