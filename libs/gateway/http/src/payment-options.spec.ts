/**
 * The payment options a merchant lists (GET /v1/payment-providers): what the catalogue
 * configures (payout terms included), shown back in the units it was written in, disabled providers left out.
 */
import { parseProviderCatalogue } from '@paygate/contracts';
import { paymentOptions } from './payment-providers.controller';

const catalogue = parseProviderCatalogue({
  providers: [
    {
      provider_code: 'mpesa_ke',
      provider_name: 'M-Pesa Kenya',
      transaction_method: 'MOBILE_MONEY',
      transaction_currency: 'KES',
      country_code: 'KE',
      calling_code: '254',
      prefixes: ['70', '71'],
      min_amount: 10.5,
      max_amount: 150000,
      fee: { percent: 1.25, fixed: 0.5, min: 5, max: 250.75 },
      payout: { min_amount: 50, max_amount: 70000.25, fee: { percent: 1, min: 10.5 } },
    },
    {
      provider_code: 'card_ug',
      provider_name: 'Visa / Mastercard (Uganda)',
      transaction_method: 'CARD',
      transaction_currency: 'UGX',
      country_code: 'UG',
      min_amount: 1000,
      max_amount: 10000000,
      fee: { percent: 3.5 },
    },
    {
      provider_code: 'airtel_money_ug',
      provider_name: 'Airtel Money Uganda',
      transaction_method: 'MOBILE_MONEY',
      transaction_currency: 'UGX',
      country_code: 'UG',
      calling_code: '256',
      prefixes: ['70'],
      min_amount: 500,
      max_amount: 2000000,
      fee: { percent: 1.5 },
      enabled: false,
    },
  ],
});

describe('payment options', () => {
  it('shows limits and the fee schedule in major units, exactly as configured, prefixes with the calling code', () => {
    expect(paymentOptions(catalogue, 'KES')).toEqual([
      {
        provider_code: 'mpesa_ke',
        provider_name: 'M-Pesa Kenya',
        transaction_method: 'MOBILE_MONEY',
        transaction_currency: 'KES',
        country_code: 'KE',
        min_amount: 10.5,
        max_amount: 150000,
        prefixes: ['25470', '25471'],
        fee: { percent: 1.25, fixed: 0.5, min: 5, max: 250.75 },
        payout: { min_amount: 50, max_amount: 70000.25, fee: { percent: 1, fixed: 0, min: 10.5 } },
      },
    ]);
  });

  it('leaves out a bound the fee schedule does not have, and gives a card provider no prefixes', () => {
    const [card] = paymentOptions(catalogue, 'UGX');
    expect(card).toMatchObject({ provider_code: 'card_ug', prefixes: [], fee: { percent: 3.5, fixed: 0 } });
    expect(card.fee).not.toHaveProperty('min');
    expect(card.fee).not.toHaveProperty('max');
    expect(card.payout).toBeNull();
  });

  it('never lists a disabled provider; a currency no provider uses lists none', () => {
    expect(paymentOptions(catalogue).map((option) => option.provider_code)).toEqual(['mpesa_ke', 'card_ug']);
    expect(paymentOptions(catalogue, 'USD')).toEqual([]);
  });
});
