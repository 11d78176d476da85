import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { NO_NUL_PATTERN } from '../openapi/schemas';
import { ArrayMaxSize, IsArray, IsString, Length, ValidateIf } from 'class-validator';

/** A payout's callbacks are filed under `payout:` and its reference of up to 64 characters. */
const RESEND_KEY_MAX = 'payout:'.length + 64;

export class ResendCallbacksDto {
  @ApiProperty({
    minLength: 1,
    maxLength: RESEND_KEY_MAX,
    pattern: NO_NUL_PATTERN,
    example: 'PG7K3M9Q2X4T8V6B1N5R0D2F3H',
    description: "The collection's internal_reference, or payout:<payout_reference> for a payout's callbacks",
  })
  @IsString({ message: 'internal_reference must be a string' })
  @Length(1, RESEND_KEY_MAX, { message: `internal_reference must be 1 to ${RESEND_KEY_MAX} characters` })
  internal_reference!: string;
}

export class RetryDeliveriesDto {
  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', pattern: NO_NUL_PATTERN },
    maxItems: 1000,
    description: 'webhook ids to retry; absent retries every abandoned delivery',
    example: ['msg_2f0c…'],
  })
  @ValidateIf((dto: RetryDeliveriesDto) => dto.webhook_ids !== undefined)
  @IsArray({ message: 'webhook_ids must be an array of strings' })
  @ArrayMaxSize(1000, { message: 'webhook_ids takes at most 1000 ids' })
  @IsString({ each: true, message: 'webhook_ids must be an array of strings' })
  webhook_ids?: string[];
}
