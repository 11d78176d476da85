import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MONEY_OUT_REFERENCE_PATTERN } from '@paygate/contracts';
import { IsNumber, IsPositive, IsString, Length, Matches, ValidateIf } from 'class-validator';
import { ABOVE_ZERO, CURRENCY_PATTERN, NO_NUL_PATTERN } from '../openapi/schemas';

export const PROVIDER_CODE_PATTERN = '^[A-Za-z0-9_-]{1,64}$';
export const MSISDN_PATTERN = '^[0-9]{6,15}$';

export class PayoutRequestDto {
  @ApiProperty({
    pattern: MONEY_OUT_REFERENCE_PATTERN,
    example: 'payout-1001',
    description:
      'Your id for the payout, unique among your payouts: the same reference with the same body answers the same payout again (nothing is sent to the provider twice); with another body, 409',
  })
  @IsString({ message: 'payout_reference must be a string' })
  @Matches(new RegExp(MONEY_OUT_REFERENCE_PATTERN), {
    message: 'payout_reference must be 1 to 64 characters of A-Z a-z 0-9 . _ : / -',
  })
  payout_reference!: string;

  @ApiProperty({ pattern: CURRENCY_PATTERN, example: 'UGX', description: "The provider's currency" })
  @IsString({ message: 'currency must be a string' })
  @Matches(new RegExp(CURRENCY_PATTERN), { message: 'currency must be a 3-letter ISO 4217 code such as UGX' })
  currency!: string;

  @ApiProperty({
    ...ABOVE_ZERO,
    example: 150000,
    description:
      "In major units, within the provider's payout min_amount and max_amount (GET /v1/payment-providers); the wallet must cover it and the payout fee",
  })
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'amount must be a number' })
  @IsPositive({ message: 'amount must be above 0' })
  amount!: number;

  @ApiProperty({ pattern: PROVIDER_CODE_PATTERN, example: 'mtn_momo_ug' })
  @IsString({ message: 'provider_code must be a string' })
  @Matches(new RegExp(PROVIDER_CODE_PATTERN), { message: 'provider_code must be 1 to 64 letters, digits, _ or -' })
  provider_code!: string;

  @ApiProperty({
    pattern: MSISDN_PATTERN,
    example: '256772000001',
    description: 'The number paid, with its calling code',
  })
  @IsString({ message: 'msisdn must be a string' })
  @Matches(new RegExp(MSISDN_PATTERN), { message: 'msisdn must be 6 to 15 digits with the calling code' })
  msisdn!: string;

  @ApiPropertyOptional({
    maxLength: 100,
    pattern: NO_NUL_PATTERN,
    example: 'Jane Doe',
    description:
      "The name you expect the account to have: the payout is refused (400) when the provider's account holder has another (case and spacing aside)",
  })
  @ValidateIf((dto: PayoutRequestDto) => dto.recipient_name !== undefined)
  @IsString({ message: 'recipient_name must be a string' })
  @Length(1, 100, { message: 'recipient_name must be 1 to 100 characters' })
  recipient_name?: string;
}
