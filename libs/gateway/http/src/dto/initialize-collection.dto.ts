import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ABOVE_ZERO, HTTP_URL_PATTERN, NO_NUL_PATTERN, NOT_BLANK_PATTERN } from '../openapi/schemas';
import {
  IsBoolean,
  IsEmail,
  IsIn,
  IsNumber,
  IsPositive,
  IsString,
  IsUrl,
  Length,
  Matches,
  MaxLength,
  ValidateIf,
} from 'class-validator';

const present = (field: string) => (dto: Record<string, unknown>) => dto[field] !== undefined;

/**
 * The fields initialize and collect-for-payment share. Decorators here both validate and
 * describe the API (OpenAPI); rules that need the provider catalogue are contract-level
 * (planCollection in libs/contracts).
 */
abstract class CollectionFieldsDto {
  @ApiProperty({
    description: '1–64 characters of A-Z a-z 0-9 . _ : / -, unique per merchant; `auto` generates one',
    pattern: '^(auto|[A-Za-z0-9._:/-]{1,64})$',
    example: 'order-1001',
  })
  @IsString({ message: 'merchant_reference must be a string' })
  @Matches(/^(auto|[A-Za-z0-9._:/-]{1,64})$/, {
    message: 'merchant_reference must be 1 to 64 characters of A-Z a-z 0-9 . _ : / - or "auto"',
  })
  merchant_reference!: string;

  @ApiProperty({ enum: ['MOBILE_MONEY', 'CARD'], example: 'MOBILE_MONEY' })
  @IsIn(['MOBILE_MONEY', 'CARD'], { message: 'transaction_method must be MOBILE_MONEY or CARD' })
  transaction_method!: 'MOBILE_MONEY' | 'CARD';

  @ApiProperty({
    description: 'From GET /v1/payment-providers',
    minLength: 1,
    maxLength: 64,
    pattern: NO_NUL_PATTERN,
    example: 'mtn_momo_ug',
  })
  @IsString({ message: 'provider_code must be a string' })
  @Length(1, 64, { message: 'provider_code must be 1 to 64 characters' })
  provider_code!: string;

  @ApiProperty({ description: "ISO 4217 code; must be the provider's currency", pattern: '^[A-Z]{3}$', example: 'UGX' })
  @IsString({ message: 'currency must be a string' })
  @Matches(/^[A-Z]{3}$/, { message: 'currency must be a 3-letter ISO 4217 code such as UGX' })
  currency!: string;

  @ApiProperty({
    ...ABOVE_ZERO,
    description:
      "Above 0, in major units, no more decimals than the currency has (UGX: none), within the provider's limits",
    example: 81000,
  })
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'amount must be a JSON number' })
  @IsPositive({ message: 'amount must be greater than 0' })
  amount!: number;

  @ApiPropertyOptional({
    description: "Required for MOBILE_MONEY: country code first, digits only, a number of the provider's network",
    pattern: '^[0-9]{8,15}$',
    example: '256772000001',
  })
  @ValidateIf((dto: CollectionFieldsDto) => dto.transaction_method === 'MOBILE_MONEY' || dto.msisdn !== undefined)
  @IsString({ message: 'msisdn must be a string of digits, country code first' })
  @Matches(/^[0-9]{8,15}$/, { message: 'msisdn must be 8 to 15 digits, country code first' })
  msisdn?: string;

  @ApiProperty({ maxLength: 100, pattern: NOT_BLANK_PATTERN, example: 'Jane Doe' })
  @IsString({ message: 'customer_name must be a string' })
  @Matches(/\S/, { message: 'customer_name must not be blank' })
  @MaxLength(100, { message: 'customer_name must be at most 100 characters' })
  customer_name!: string;

  @ApiPropertyOptional({ format: 'email', example: 'jane@example.com' })
  @ValidateIf(present('customer_email'))
  @IsEmail({}, { message: 'customer_email must be a valid email address' })
  customer_email?: string;

  @ApiPropertyOptional({ maxLength: 255, pattern: NO_NUL_PATTERN, example: 'Order 1001' })
  @ValidateIf(present('description'))
  @IsString({ message: 'description must be a string' })
  @MaxLength(255, { message: 'description must be at most 255 characters' })
  description?: string;

  @ApiPropertyOptional({ default: false, description: 'true: the customer pays the fee on top of amount' })
  @ValidateIf(present('charge_customer'))
  @IsBoolean({ message: 'charge_customer must be true or false' })
  charge_customer?: boolean;

  @ApiPropertyOptional({ default: true, description: 'true: call confirm after the transaction.charges callback' })
  @ValidateIf(present('require_confirmation'))
  @IsBoolean({ message: 'require_confirmation must be true or false' })
  require_confirmation?: boolean;
}

const REDIRECT_URL_RULES = [
  IsString({ message: 'redirect_url must be an absolute http(s) URL' }),
  IsUrl(
    { protocols: ['http', 'https'], require_protocol: true, require_tld: false },
    { message: 'redirect_url must be an absolute http(s) URL' },
  ),
  MaxLength(2048, { message: 'redirect_url must be at most 2048 characters' }),
];

/** The initialize body (Collection request). */
export class InitializeCollectionDto extends CollectionFieldsDto {
  @ApiPropertyOptional({
    description: 'Required for CARD: where the customer returns after the checkout (absolute http or https)',
    format: 'uri',
    maxLength: 2048,
    pattern: HTTP_URL_PATTERN,
    example: 'https://shop.example.com/paid',
  })
  @ValidateIf((dto: InitializeCollectionDto) => dto.transaction_method === 'CARD' || dto.redirect_url !== undefined)
  @(REDIRECT_URL_RULES[0])
  @(REDIRECT_URL_RULES[1])
  @(REDIRECT_URL_RULES[2])
  redirect_url?: string;
}

/** The collect-for-payment body: a collection whose funds pay a PRN. */
export class CollectForPaymentDto extends CollectionFieldsDto {
  @ApiProperty({
    description: 'The Payment Registration Number to pay from the collected funds: digits only',
    pattern: '^[0-9]{1,32}$',
    example: '2250000001301',
  })
  @IsString({ message: 'prn must be a string of digits' })
  @Matches(/^[0-9]{1,32}$/, { message: 'prn must be 1 to 32 digits' })
  prn!: string;

  @ApiPropertyOptional({
    description:
      'CARD: where the customer returns after the checkout (absolute http or https); without it the customer ends on a hosted result page',
    format: 'uri',
    maxLength: 2048,
    pattern: HTTP_URL_PATTERN,
    example: 'https://shop.example.com/paid',
  })
  @ValidateIf(present('redirect_url'))
  @(REDIRECT_URL_RULES[0])
  @(REDIRECT_URL_RULES[1])
  @(REDIRECT_URL_RULES[2])
  redirect_url?: string;
}

export class ConfirmCollectionDto {
  @ApiProperty({
    description: 'From the initialize acknowledgement',
    minLength: 1,
    maxLength: 64,
    pattern: NO_NUL_PATTERN,
    example: 'PG7K3M9Q2X4T8V6B1N5R0D2F3H',
  })
  @IsString({ message: 'internal_reference must be a string' })
  @Length(1, 64, { message: 'internal_reference must be 1 to 64 characters' })
  internal_reference!: string;
}
