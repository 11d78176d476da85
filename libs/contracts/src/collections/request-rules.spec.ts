import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CatalogueError, parseProviderCatalogue, type ProviderCatalogue } from './catalogue';
import type { CollectionRequest } from './commands';
import { msisdnBelongsTo, planCollection, type FieldError } from './request-rules';

const RAW_CATALOGUE: unknown = JSON.parse(
  readFileSync(resolve(__dirname, '../../../../config/providers.json'), 'utf8'),
);
const catalogue = parseProviderCatalogue(RAW_CATALOGUE);

const rawProviders = () => structuredClone(RAW_CATALOGUE as { providers: Array<Record<string, unknown>> }).providers;

const MTN = '256772000001';
const AIRTEL = '256752000002';

function momo(overrides: Partial<CollectionRequest> = {}): CollectionRequest {
  return {
    merchant_reference: 'order-1',
    transaction_method: 'MOBILE_MONEY',
    provider_code: 'mtn_momo_ug',
    currency: 'UGX',
    amount: 81000,
    msisdn: MTN,
    customer_name: 'Jane Doe',
    charge_customer: false,
    require_confirmation: true,
    ...overrides,
  };
}

function card(overrides: Partial<CollectionRequest> = {}): CollectionRequest {
  return {
    merchant_reference: 'order-2',
    transaction_method: 'CARD',
    provider_code: 'card_ug',
    currency: 'UGX',
    amount: 25000,
    customer_name: 'Jane Doe',
    charge_customer: false,
    require_confirmation: true,
    redirect_url: 'https://merchant.example/return',
    ...overrides,
  };
}

function errorsOf(request: CollectionRequest, within: ProviderCatalogue = catalogue): FieldError[] {
  const result = planCollection(request, within);
  if (result.ok) throw new Error(`expected errors, got a plan: ${JSON.stringify(result.plan.charges)}`);
  return result.errors;
}

describe('the default catalogue (config/providers.json)', () => {
  it('parses into the three providers of the sandbox catalogue (docs/api.md, Payment options), amounts in UGX minor units', () => {
    expect([...catalogue.keys()]).toEqual(['mtn_momo_ug', 'airtel_money_ug', 'card_ug']);
    expect(catalogue.get('mtn_momo_ug')).toEqual({
      code: 'mtn_momo_ug',
      name: 'MTN Mobile Money Uganda',
      method: 'MOBILE_MONEY',
      currency: 'UGX',
      countryCode: 'UG',
      callingCode: '256',
      prefixes: ['76', '77', '78', '79'],
      nationalNumberLength: 9,
      minAmount: 500,
      maxAmount: 5_000_000,
      fee: { ratePerMillion: 15_000, fixedMinor: 0, minMinor: 100 },
      payout: {
        minAmount: 1000,
        maxAmount: 10_000_000,
        fee: { ratePerMillion: 10_000, fixedMinor: 0, minMinor: 500, maxMinor: 10_000 },
      },
      enabled: true,
    });
    expect(catalogue.get('airtel_money_ug')).toMatchObject({
      method: 'MOBILE_MONEY',
      prefixes: ['70', '74', '75'],
      minAmount: 500,
      maxAmount: 2_000_000,
    });
    expect(catalogue.get('card_ug')).toMatchObject({
      method: 'CARD',
      prefixes: [],
      callingCode: undefined,
      minAmount: 1000,
      maxAmount: 10_000_000,
      fee: { ratePerMillion: 35_000, fixedMinor: 0 },
    });
  });
});

describe('planCollection: valid requests and their charges', () => {
  // transaction_amount = total_credit + fee, always.
  it.each<
    [string, CollectionRequest, { requestAmount: number; fee: number; transactionAmount: number; totalCredit: number }]
  >([
    // 1.5 % of 81,000 = 1,215
    [
      'MTN, merchant pays the fee',
      momo({ amount: 81000 }),
      { requestAmount: 81000, fee: 1215, transactionAmount: 81000, totalCredit: 79785 },
    ],
    [
      'MTN, customer pays the fee',
      momo({ amount: 81000, charge_customer: true }),
      { requestAmount: 81000, fee: 1215, transactionAmount: 82215, totalCredit: 81000 },
    ],
    [
      'Airtel, merchant pays the fee',
      momo({ provider_code: 'airtel_money_ug', msisdn: AIRTEL, amount: 50000 }),
      { requestAmount: 50000, fee: 750, transactionAmount: 50000, totalCredit: 49250 },
    ],
    [
      'Airtel, customer pays the fee',
      momo({ provider_code: 'airtel_money_ug', msisdn: AIRTEL, amount: 50000, charge_customer: true }),
      { requestAmount: 50000, fee: 750, transactionAmount: 50750, totalCredit: 50000 },
    ],
    // 1.5 % of 10,100 = 151.5 -> 152 (half-up); of 10,099 = 151.485 -> 151
    [
      'MTN, 1.5 % rounded half-up',
      momo({ amount: 10100 }),
      { requestAmount: 10100, fee: 152, transactionAmount: 10100, totalCredit: 9948 },
    ],
    [
      'MTN, 1.5 % rounded down below the half',
      momo({ amount: 10099 }),
      { requestAmount: 10099, fee: 151, transactionAmount: 10099, totalCredit: 9948 },
    ],
    // 1.5 % of 500 = 7.5, below the 100 minimum; of 6,666 = 99.99 -> 100
    [
      'MTN at its minimum amount: the fee minimum applies',
      momo({ amount: 500 }),
      { requestAmount: 500, fee: 100, transactionAmount: 500, totalCredit: 400 },
    ],
    [
      'MTN, fee minimum with the customer paying',
      momo({ amount: 500, charge_customer: true }),
      { requestAmount: 500, fee: 100, transactionAmount: 600, totalCredit: 500 },
    ],
    [
      'MTN at its maximum amount',
      momo({ amount: 5_000_000 }),
      { requestAmount: 5_000_000, fee: 75_000, transactionAmount: 5_000_000, totalCredit: 4_925_000 },
    ],
    [
      'Airtel at its maximum amount',
      momo({ provider_code: 'airtel_money_ug', msisdn: '256702000001', amount: 2_000_000 }),
      { requestAmount: 2_000_000, fee: 30_000, transactionAmount: 2_000_000, totalCredit: 1_970_000 },
    ],
    // 3.5 % of 25,000 = 875
    [
      'card, merchant pays the fee',
      card({ amount: 25000 }),
      { requestAmount: 25000, fee: 875, transactionAmount: 25000, totalCredit: 24125 },
    ],
    [
      'card, customer pays the fee',
      card({ amount: 25000, charge_customer: true }),
      { requestAmount: 25000, fee: 875, transactionAmount: 25875, totalCredit: 25000 },
    ],
    // 3.5 % of 1,100 = 38.5 -> 39 (half-up); of 1,010 = 35.35 -> 35; no fee minimum on cards
    [
      'card, 3.5 % rounded half-up',
      card({ amount: 1100 }),
      { requestAmount: 1100, fee: 39, transactionAmount: 1100, totalCredit: 1061 },
    ],
    [
      'card, 3.5 % rounded down',
      card({ amount: 1010, charge_customer: true }),
      { requestAmount: 1010, fee: 35, transactionAmount: 1045, totalCredit: 1010 },
    ],
    [
      'card at its minimum amount',
      card({ amount: 1000 }),
      { requestAmount: 1000, fee: 35, transactionAmount: 1000, totalCredit: 965 },
    ],
    [
      'card at its maximum amount',
      card({ amount: 10_000_000 }),
      { requestAmount: 10_000_000, fee: 350_000, transactionAmount: 10_000_000, totalCredit: 9_650_000 },
    ],
    [
      'UGX amount written as 81000.0',
      momo({ amount: 81000.0 }),
      { requestAmount: 81000, fee: 1215, transactionAmount: 81000, totalCredit: 79785 },
    ],
  ])('%s', (_name, request, expected) => {
    const result = planCollection(request, catalogue);
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    const { plan } = result;
    expect(plan.provider).toBe(catalogue.get(request.provider_code));
    expect({ requestAmount: plan.requestAmount, ...plan.charges }).toEqual(expected);
    expect(plan.charges.transactionAmount).toBe(plan.charges.totalCredit + plan.charges.fee);
  });

  it('ignores msisdn for CARD and redirect_url for MOBILE_MONEY', () => {
    expect(planCollection(card({ msisdn: '123' }), catalogue).ok).toBe(true);
    expect(planCollection(momo({ redirect_url: 'https://merchant.example/r' }), catalogue).ok).toBe(true);
  });
});

describe('planCollection: each rule', () => {
  it.each<[string, CollectionRequest, FieldError[]]>([
    [
      'unknown provider',
      momo({ provider_code: 'mpesa_ke' }),
      [{ field: 'provider_code', message: 'provider_code mpesa_ke is not an available provider' }],
    ],
    [
      'unknown provider: no other rule is checked',
      momo({ provider_code: 'nope', currency: 'XXX', amount: -1, msisdn: 'x' }),
      [{ field: 'provider_code', message: 'provider_code nope is not an available provider' }],
    ],
    [
      'method mismatch (CARD for MoMo)',
      momo({ transaction_method: 'CARD' }),
      [{ field: 'transaction_method', message: 'transaction_method must be MOBILE_MONEY for provider mtn_momo_ug' }],
    ],
    [
      'method mismatch (MOBILE_MONEY for card)',
      card({ transaction_method: 'MOBILE_MONEY' }),
      [{ field: 'transaction_method', message: 'transaction_method must be CARD for provider card_ug' }],
    ],
    [
      'currency mismatch',
      momo({ currency: 'KES' }),
      [{ field: 'currency', message: 'currency must be UGX for provider mtn_momo_ug' }],
    ],
    [
      'decimals on UGX',
      momo({ amount: 1000.5 }),
      [{ field: 'amount', message: 'amount UGX amounts have no decimals' }],
    ],
    ['zero amount', momo({ amount: 0 }), [{ field: 'amount', message: 'amount must be greater than 0' }]],
    ['negative amount', card({ amount: -5000 }), [{ field: 'amount', message: 'amount must be greater than 0' }]],
    [
      'below the MTN minimum',
      momo({ amount: 499 }),
      [{ field: 'amount', message: 'amount must be between UGX 500 and UGX 5,000,000 for provider mtn_momo_ug' }],
    ],
    [
      'above the MTN maximum',
      momo({ amount: 5_000_001 }),
      [{ field: 'amount', message: 'amount must be between UGX 500 and UGX 5,000,000 for provider mtn_momo_ug' }],
    ],
    [
      'above the Airtel maximum',
      momo({ provider_code: 'airtel_money_ug', msisdn: AIRTEL, amount: 2_000_001 }),
      [{ field: 'amount', message: 'amount must be between UGX 500 and UGX 2,000,000 for provider airtel_money_ug' }],
    ],
    [
      'below the card minimum',
      card({ amount: 999 }),
      [{ field: 'amount', message: 'amount must be between UGX 1,000 and UGX 10,000,000 for provider card_ug' }],
    ],
    [
      'above the card maximum',
      card({ amount: 10_000_001 }),
      [{ field: 'amount', message: 'amount must be between UGX 1,000 and UGX 10,000,000 for provider card_ug' }],
    ],
    [
      'an Airtel msisdn for MTN',
      momo({ msisdn: '256701234567' }),
      [{ field: 'msisdn', message: 'msisdn 256701234567 is not valid for provider mtn_momo_ug' }],
    ],
    [
      'an MTN msisdn for Airtel',
      momo({ provider_code: 'airtel_money_ug', msisdn: '256772000001' }),
      [{ field: 'msisdn', message: 'msisdn 256772000001 is not valid for provider airtel_money_ug' }],
    ],
    [
      'an msisdn one digit short',
      momo({ msisdn: '25677200000' }),
      [{ field: 'msisdn', message: 'msisdn 25677200000 is not valid for provider mtn_momo_ug' }],
    ],
    [
      'an msisdn one digit long',
      momo({ msisdn: '2567720000011' }),
      [{ field: 'msisdn', message: 'msisdn 2567720000011 is not valid for provider mtn_momo_ug' }],
    ],
    [
      'another country code (Kenya)',
      momo({ msisdn: '254772000001' }),
      [{ field: 'msisdn', message: 'msisdn 254772000001 is not valid for provider mtn_momo_ug' }],
    ],
    [
      'a national number without country code',
      momo({ msisdn: '0772000001' }),
      [{ field: 'msisdn', message: 'msisdn 0772000001 is not valid for provider mtn_momo_ug' }],
    ],
    [
      'an msisdn with a plus',
      momo({ msisdn: '+256772000001' }),
      [{ field: 'msisdn', message: 'msisdn +256772000001 is not valid for provider mtn_momo_ug' }],
    ],
    [
      'missing msisdn for MOBILE_MONEY',
      momo({ msisdn: undefined }),
      [{ field: 'msisdn', message: 'msisdn is required for MOBILE_MONEY' }],
    ],
    [
      'missing redirect_url for CARD',
      card({ redirect_url: undefined }),
      [{ field: 'redirect_url', message: 'redirect_url is required for CARD' }],
    ],
  ])('%s', (_name, request, expected) => {
    expect(errorsOf(request)).toEqual(expected);
  });

  it('a disabled provider is not available', () => {
    const providers = rawProviders();
    providers[0]['enabled'] = false;
    const disabled = parseProviderCatalogue({ providers });
    expect(disabled.get('mtn_momo_ug')?.enabled).toBe(false);
    expect(errorsOf(momo(), disabled)).toEqual([
      { field: 'provider_code', message: 'provider_code mtn_momo_ug is not an available provider' },
    ]);
    // the others stay available
    expect(planCollection(card(), disabled).ok).toBe(true);
  });

  describe('a fee larger than (or equal to) the amount', () => {
    // A catalogue where a flat 600 UGX fee meets amounts from 500.
    const providers = rawProviders();
    providers[0]['fee'] = { percent: 0, fixed: 600 };
    const flatFee = parseProviderCatalogue({ providers });

    it.each([500, 600])('is rejected for %i UGX when the merchant pays it', (amount) => {
      expect(errorsOf(momo({ amount }), flatFee)).toEqual([
        { field: 'amount', message: 'amount does not cover the fee of UGX 600' },
      ]);
    });

    it('is accepted when the customer pays it', () => {
      const result = planCollection(momo({ amount: 500, charge_customer: true }), flatFee);
      expect(result.ok && result.plan.charges).toEqual({ fee: 600, transactionAmount: 1100, totalCredit: 500 });
    });

    it('is accepted once the amount leaves credit', () => {
      const result = planCollection(momo({ amount: 601 }), flatFee);
      expect(result.ok && result.plan.charges).toEqual({ fee: 600, transactionAmount: 601, totalCredit: 1 });
    });
  });

  it('reports several errors at once, each naming its field', () => {
    const errors = errorsOf(momo({ transaction_method: 'CARD', currency: 'KES', amount: 10, msisdn: '256701234567' }));
    expect(errors).toEqual([
      { field: 'transaction_method', message: 'transaction_method must be MOBILE_MONEY for provider mtn_momo_ug' },
      { field: 'currency', message: 'currency must be UGX for provider mtn_momo_ug' },
      { field: 'amount', message: 'amount must be between UGX 500 and UGX 5,000,000 for provider mtn_momo_ug' },
      { field: 'msisdn', message: 'msisdn 256701234567 is not valid for provider mtn_momo_ug' },
    ]);
    for (const error of errors) expect(error.message.startsWith(error.field)).toBe(true);
  });

  it('reports a card request’s missing redirect_url together with its amount error', () => {
    expect(errorsOf(card({ amount: 12.5, redirect_url: undefined })).map((e) => e.field)).toEqual([
      'amount',
      'redirect_url',
    ]);
  });
});

describe('msisdnBelongsTo', () => {
  const mtn = catalogue.get('mtn_momo_ug');
  const airtel = catalogue.get('airtel_money_ug');
  if (!mtn || !airtel) throw new Error('default catalogue lacks MTN or Airtel');

  it.each(['256760000000', '256770000000', '256780000000', '256790000000'])('MTN takes %s', (msisdn) => {
    expect(msisdnBelongsTo(mtn, msisdn)).toBe(true);
    expect(msisdnBelongsTo(airtel, msisdn)).toBe(false);
  });

  it.each(['256700000000', '256740000000', '256750000000'])('Airtel takes %s', (msisdn) => {
    expect(msisdnBelongsTo(airtel, msisdn)).toBe(true);
    expect(msisdnBelongsTo(mtn, msisdn)).toBe(false);
  });

  it.each(['', '256', '25677 000000', '256-772000001', '256772000001 ', '256710000000'])(
    'no provider takes %p',
    (msisdn) => {
      expect(msisdnBelongsTo(mtn, msisdn)).toBe(false);
      expect(msisdnBelongsTo(airtel, msisdn)).toBe(false);
    },
  );
});

describe('parseProviderCatalogue rejects', () => {
  const withFirst = (change: (provider: Record<string, unknown>) => void) => {
    const providers = rawProviders();
    change(providers[0]);
    return { providers };
  };

  it.each<[string, unknown, RegExp]>([
    ['an empty list', { providers: [] }, /providers must be a non-empty array/],
    ['no list', {}, /providers must be a non-empty array/],
    ['null', null, /providers must be a non-empty array/],
    ['a list that is not an array', { providers: { mtn: {} } }, /providers must be a non-empty array/],
    [
      'a duplicate code',
      { providers: [...rawProviders(), rawProviders()[0]] },
      /providers\[3\]\.provider_code mtn_momo_ug appears twice/,
    ],
    [
      'a missing code',
      withFirst((p) => delete p['provider_code']),
      /providers\[0\]\.provider_code must be a non-empty string/,
    ],
    [
      'an unknown method',
      withFirst((p) => (p['transaction_method'] = 'BANK')),
      /providers\[0\]\.transaction_method must be MOBILE_MONEY or CARD/,
    ],
    [
      'an unsupported currency',
      withFirst((p) => (p['transaction_currency'] = 'EUR')),
      /providers\[0\]\.transaction_currency must be a supported currency/,
    ],
    [
      'a lower-case currency',
      withFirst((p) => (p['transaction_currency'] = 'ugx')),
      /transaction_currency must be a supported currency/,
    ],
    [
      'MOBILE_MONEY with no prefixes',
      withFirst((p) => (p['prefixes'] = [])),
      /providers\[0\]: a MOBILE_MONEY provider needs calling_code and prefixes/,
    ],
    [
      'MOBILE_MONEY without a prefixes field',
      withFirst((p) => delete p['prefixes']),
      /a MOBILE_MONEY provider needs calling_code and prefixes/,
    ],
    [
      'MOBILE_MONEY without calling_code',
      withFirst((p) => delete p['calling_code']),
      /a MOBILE_MONEY provider needs calling_code and prefixes/,
    ],
    [
      'a prefix that is not digits',
      withFirst((p) => (p['prefixes'] = ['77', '7x'])),
      /providers\[0\]\.prefixes must be an array of digit strings/,
    ],
    [
      'min_amount > max_amount',
      withFirst((p) => Object.assign(p, { min_amount: 6_000_000, max_amount: 5_000_000 })),
      /providers\[0\]: min_amount exceeds max_amount/,
    ],
    [
      'a UGX min_amount with decimals',
      withFirst((p) => (p['min_amount'] = 500.5)),
      /providers\[0\]\.min_amount: UGX amounts have no decimals/,
    ],
    [
      'a max_amount that is not a number',
      withFirst((p) => (p['max_amount'] = '5000000')),
      /providers\[0\]\.max_amount must be a number/,
    ],
    ['a fee that is not an object', withFirst((p) => (p['fee'] = 1.5)), /providers\[0\]\.fee: /],
    ['a missing fee', withFirst((p) => delete p['fee']), /providers\[0\]\.fee: /],
    [
      'a fee above 100 %',
      withFirst((p) => (p['fee'] = { percent: 150 })),
      /providers\[0\]\.fee: .*percent must be between 0 and 100/,
    ],
    [
      'a fee with an unknown field',
      withFirst((p) => (p['fee'] = { percent: 1.5, maximum: 10 })),
      /providers\[0\]\.fee: .*unknown field "maximum"/,
    ],
    [
      'a fee with min > max',
      withFirst((p) => (p['fee'] = { percent: 1.5, min: 100, max: 50 })),
      /providers\[0\]\.fee: .*min \(100\) must not be greater than max \(50\)/,
    ],
    [
      'a bad country code',
      withFirst((p) => (p['country_code'] = 'Uganda')),
      /providers\[0\]\.country_code must be an ISO 3166 alpha-2 code/,
    ],
    [
      'a bad national number length',
      withFirst((p) => (p['national_number_length'] = 0)),
      /providers\[0\]\.national_number_length must be a positive integer/,
    ],
    [
      'a connector no library provides',
      withFirst((p) => (p['connector'] = 'mpesa')),
      /providers\[0\]\.connector must be one of momo, card/,
    ],
  ])('%s', (_name, raw, message) => {
    expect(() => parseProviderCatalogue(raw)).toThrow(CatalogueError);
    expect(() => parseProviderCatalogue(raw)).toThrow(message);
  });

  it('an error in a later entry names its index', () => {
    const providers = rawProviders();
    providers[2]['transaction_currency'] = 'EUR';
    expect(() => parseProviderCatalogue({ providers })).toThrow(/^providers\[2\]\.transaction_currency/);
  });

  it('keeps a connector named explicitly, and none when the entry names none', () => {
    const providers = rawProviders();
    providers[1]['connector'] = 'momo';
    const parsed = parseProviderCatalogue({ providers });
    expect(parsed.get('airtel_money_ug')?.connector).toBe('momo');
    expect(parsed.get('mtn_momo_ug')).not.toHaveProperty('connector');
  });

  it('accepts a 2-decimal currency, converting amounts and fee to minor units', () => {
    const parsed = parseProviderCatalogue({
      providers: [
        {
          provider_code: 'card_ke',
          provider_name: 'Card KE',
          transaction_method: 'CARD',
          transaction_currency: 'KES',
          country_code: 'KE',
          min_amount: 10.5,
          max_amount: 1000,
          fee: { percent: 2.5, fixed: 0.3 },
        },
      ],
    });
    expect(parsed.get('card_ke')).toMatchObject({
      minAmount: 1050,
      maxAmount: 100_000,
      fee: { ratePerMillion: 25_000, fixedMinor: 30 },
      enabled: true,
    });
  });
});
