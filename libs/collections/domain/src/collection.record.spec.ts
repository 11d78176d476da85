/**
 * The Collection aggregate, pure decide/evolve (fixtures in collection-test-setup.ts). This file:
 * toCollectionRecord() and toCollectionDetails(): the API's view of a collection (amounts in major
 * units, payment_url, final status, details).
 */
import { planCollection, type Provider, type ProviderCatalogue, type TransactionMethod } from '@paygate/contracts';
import { ACKNOWLEDGED_MOMO_RECORD } from '@paygate/testing';
import type { Collection } from './collection';
import {
  apply,
  at,
  FINAL_STATES,
  initiatedData,
  MASKED_CARD,
  PAYMENT_URL,
  type Situation,
  stateIn,
  T0,
} from './collection-test-setup';
import { toCollectionDetails, toCollectionRecord } from './record';

describe('toCollectionRecord', () => {
  it('shows UGX amounts in major units (no decimals) and the collection status', () => {
    const state = stateIn('MOBILE_MONEY', 'AWAITING_CONFIRMATION');
    expect(toCollectionRecord(state)).toEqual({
      id: 42,
      merchant_reference: 'order-momo-1',
      internal_reference: state.initiated.internalReference,
      ...ACKNOWLEDGED_MOMO_RECORD,
    });
  });

  // A hand-built 2-decimal provider: 2.5 % fee, no minimum.
  const usdCard: Provider = {
    code: 'card_usd',
    name: 'Card (USD)',
    method: 'CARD',
    currency: 'USD',
    countryCode: 'UG',
    prefixes: [],
    nationalNumberLength: 9,
    minAmount: 100,
    maxAmount: 1_000_000,
    fee: { ratePerMillion: 25_000, fixedMinor: 0 },
    enabled: true,
  };
  const catalogue: ProviderCatalogue = new Map([[usdCard.code, usdCard]]);

  it.each<
    [boolean, { request_amount: number; transaction_amount: number; transaction_fee: number; total_credit: number }]
  >([
    // 2.5 % of 12.34 = 0.3085 -> 31 cents (half-up)
    [false, { request_amount: 12.34, transaction_amount: 12.34, transaction_fee: 0.31, total_credit: 12.03 }],
    [true, { request_amount: 12.34, transaction_amount: 12.65, transaction_fee: 0.31, total_credit: 12.34 }],
  ])('shows 2-decimal amounts in major units (charge_customer=%s)', (chargeCustomer, expected) => {
    const planned = planCollection(
      {
        merchant_reference: 'usd-1',
        transaction_method: 'CARD',
        provider_code: 'card_usd',
        currency: 'USD',
        amount: 12.34,
        customer_name: 'Jane',
        charge_customer: chargeCustomer,
        require_confirmation: true,
        redirect_url: 'https://merchant.example/r',
      },
      catalogue,
    );
    if (!planned.ok) throw new Error(JSON.stringify(planned.errors));
    const { charges, requestAmount } = planned.plan;
    const data = initiatedData('CARD', true, {
      providerCode: 'card_usd',
      currency: 'USD',
      requestAmount,
      transactionAmount: charges.transactionAmount,
      fee: charges.fee,
      totalCredit: charges.totalCredit,
      chargeCustomer,
    });
    const state = apply(null, { type: 'Initiate', data }) as Collection;
    const record = toCollectionRecord(state);
    expect(record).toMatchObject({
      ...expected,
      request_currency: 'USD',
      transaction_currency: 'USD',
      charge_customer: chargeCustomer,
      provider_code: 'card_usd',
    });
    expect(record.transaction_amount).toBeCloseTo(record.total_credit + record.transaction_fee, 10);
  });

  it.each<[TransactionMethod, Situation, boolean]>([
    ['CARD', 'AWAITING_CONFIRMATION', false],
    ['CARD', 'AWAITING_PROVIDER', false],
    ['CARD', 'WITH_PROVIDER', true],
    ['CARD', 'COMPLETED', false],
    ['CARD', 'FAILED', false],
    ['CARD', 'CANCELLED', false],
    ['MOBILE_MONEY', 'WITH_PROVIDER', false],
    ['MOBILE_MONEY', 'COMPLETED', false],
  ])('%s in %s carries payment_url: %s', (method, situation, present) => {
    const record = toCollectionRecord(stateIn(method, situation));
    if (present) expect(record.payment_url).toBe(PAYMENT_URL);
    else expect(record).not.toHaveProperty('payment_url');
  });

  it.each(FINAL_STATES)('reports the final status %s', (status) => {
    expect(toCollectionRecord(stateIn('CARD', status)).transaction_status).toBe(status);
  });

  it('toCollectionDetails adds method, account, customer and times', () => {
    const details = toCollectionDetails(stateIn('CARD', 'COMPLETED'));
    expect(details).toMatchObject({
      transaction_method: 'CARD',
      transaction_account: MASKED_CARD,
      customer_name: 'Jane Doe',
      created_at: T0,
      updated_at: at(120),
      transaction_status: 'COMPLETED',
    });
    expect(toCollectionDetails(stateIn('CARD', 'AWAITING_CONFIRMATION')).transaction_account).toBeNull();
  });
});
