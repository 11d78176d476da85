import { Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Provider, ProviderCatalogue } from '@paygate/contracts';
import { toMajorUnits, type FeeRule } from '@paygate/money';
import { envelope } from '@paygate/platform';
import type { GatewayConfig } from './gateway-config';
import { MerchantApi } from './guards';
import { ApiAnswer, MerchantOperation } from './openapi/responses';
import { PaymentProvidersDto } from './openapi/schemas';
import { GATEWAY_CONFIG } from './tokens';
import { ValidationFailed, type FieldError } from './validation';

function paymentOption(provider: Provider) {
  const major = (minor: number) => toMajorUnits(minor, provider.currency);
  const feeSchedule = (fee: FeeRule) => ({
    percent: fee.ratePerMillion / 10_000,
    fixed: major(fee.fixedMinor),
    ...(fee.minMinor !== undefined && { min: major(fee.minMinor) }),
    ...(fee.maxMinor !== undefined && { max: major(fee.maxMinor) }),
  });
  const { payout } = provider;
  return {
    provider_code: provider.code,
    provider_name: provider.name,
    transaction_method: provider.method,
    transaction_currency: provider.currency,
    country_code: provider.countryCode,
    min_amount: major(provider.minAmount),
    max_amount: major(provider.maxAmount),
    prefixes: provider.prefixes.map((prefix) => `${provider.callingCode ?? ''}${prefix}`),
    fee: feeSchedule(provider.fee),
    payout: payout
      ? { min_amount: major(payout.minAmount), max_amount: major(payout.maxAmount), fee: feeSchedule(payout.fee) }
      : null,
  };
}

/** The enabled providers, of `currency` when given, as the merchant API lists them: amounts in major units. */
export function paymentOptions(catalogue: ProviderCatalogue, currency?: string) {
  return [...catalogue.values()]
    .filter((provider) => provider.enabled && (currency === undefined || provider.currency === currency))
    .map(paymentOption);
}

@ApiTags('payment options')
@Controller()
@MerchantApi()
export class PaymentProvidersController {
  constructor(@Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig) {}

  @Get(['v1/payment-providers', 'payment-providers'])
  @MerchantOperation({
    id: 'listPaymentProviders',
    summary: 'Payment options: providers, limits, msisdn prefixes and fee schedules, for collections and payouts',
    description: 'The enabled providers of the catalogue; a currency no provider uses gives an empty list.',
    secretKey: false,
    body: false,
    invalid: 'a malformed currency or transaction_type filter',
  })
  @ApiAnswer(200, 'The payment options', PaymentProvidersDto)
  @ApiQuery({ name: 'currency', required: false, example: 'UGX', schema: { type: 'string', pattern: '^[A-Z]{3}$' } })
  @ApiQuery({ name: 'transaction_type', required: false, enum: ['COLLECTION'] })
  list(@Query('currency') currency: unknown, @Query('transaction_type') transactionType: unknown) {
    const errors: FieldError[] = [];
    if (currency !== undefined && (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency)))
      errors.push({ field: 'currency', message: 'currency must be a 3-letter ISO 4217 code such as UGX' });
    if (transactionType !== undefined && transactionType !== 'COLLECTION')
      errors.push({ field: 'transaction_type', message: 'transaction_type must be COLLECTION' });
    if (errors.length > 0) throw new ValidationFailed(errors);
    return envelope(200, 'Payment options', {
      payment_providers: paymentOptions(this.config.catalogue, currency as string | undefined),
    });
  }
}
