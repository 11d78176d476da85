import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MONEY_OUT_REFERENCE_PATTERN } from '@paygate/contracts';
import { IsNumber, IsPositive, IsString, Length, Matches, ValidateIf } from 'class-validator';
import { ABOVE_ZERO, INTERNAL_REFERENCE_PATTERN, NO_NUL_PATTERN } from '../openapi/schemas';

export class RefundRequestDto {
  @ApiProperty({
    pattern: INTERNAL_REFERENCE_PATTERN,
    example: 'PG7K3M9Q2X4T8V6B1N5R0D2F3H',
    description: 'The COMPLETED collection to refund',
  })
  @IsString({ message: 'internal_reference must be a string' })
  @Length(1, 64, { message: 'internal_reference must be 1 to 64 characters' })
  internal_reference!: string;

  @ApiProperty({
    pattern: MONEY_OUT_REFERENCE_PATTERN,
    example: 'refund-1001',
    description:
      'Your id for the refund, unique among your refunds: the same reference with the same body answers the same refund again (nothing is sent to the provider twice); with another body, 409',
  })
  @IsString({ message: 'refund_reference must be a string' })
  @Matches(new RegExp(MONEY_OUT_REFERENCE_PATTERN), {
    message: 'refund_reference must be 1 to 64 characters of A-Z a-z 0-9 . _ : / -',
  })
  refund_reference!: string;

  @ApiPropertyOptional({
    ...ABOVE_ZERO,
    example: 20000,
    description:
      'In major units, no more decimals than the currency has; absent: all that is left to refund. Refunds of a collection together, those still pending included, never exceed what the customer paid (transaction_amount).',
  })
  @ValidateIf((dto: RefundRequestDto) => dto.amount !== undefined)
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'amount must be a number' })
  @IsPositive({ message: 'amount must be above 0' })
  amount?: number;

  @ApiPropertyOptional({ maxLength: 255, pattern: NO_NUL_PATTERN, example: 'Order cancelled by the customer' })
  @ValidateIf((dto: RefundRequestDto) => dto.reason !== undefined)
  @IsString({ message: 'reason must be a string' })
  @Length(1, 255, { message: 'reason must be 1 to 255 characters' })
  reason?: string;
}
