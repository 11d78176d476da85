import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { DASHBOARD_ROLES, EMAIL, type DashboardRole } from '@paygate/merchants';
import { HTTP_URL_PATTERN, NOT_BLANK_PATTERN } from '../openapi/schemas';
import {
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';

/**
 * Here a callback URL is a string of bounded length; what it may name is the address guard's (callbackUrlRefusal),
 * applied by the controller.
 */
const CALLBACK_URL_MAX = 2048;
/** Payout limits in whole units: the largest a minor-unit amount of any supported currency still holds exactly. */
const WHOLE_UNITS_MAX = 1_000_000_000_000;
/** A string (not `object`, which `string | null` reflects as): the URL or null. */
const CALLBACK_URL = {
  type: 'string',
  format: 'uri',
  maxLength: CALLBACK_URL_MAX,
  nullable: true,
  pattern: HTTP_URL_PATTERN,
  description: 'An absolute https URL, or null for none',
} as const;

export class CreateMerchantDto {
  @ApiProperty({ minLength: 1, maxLength: 100, pattern: NOT_BLANK_PATTERN, example: 'Kampala Books' })
  @IsString({ message: 'name must be a string' })
  @Length(1, 100, { message: 'name must be 1 to 100 characters' })
  @Matches(/\S/, { message: 'name must not be blank' })
  name!: string;

  @ApiPropertyOptional({ ...CALLBACK_URL, example: 'https://shop.example.com/paygate/collections' })
  @ValidateIf(
    (dto: CreateMerchantDto) => dto.collection_callback_url !== undefined && dto.collection_callback_url !== null,
  )
  @IsString({ message: 'collection_callback_url must be a string (an absolute https URL)' })
  @MaxLength(CALLBACK_URL_MAX, { message: `collection_callback_url must be at most ${CALLBACK_URL_MAX} characters` })
  collection_callback_url?: string | null;

  @ApiPropertyOptional({ ...CALLBACK_URL, example: 'https://shop.example.com/paygate/payments' })
  @ValidateIf(
    (dto: CreateMerchantDto) =>
      dto.service_payments_callback_url !== undefined && dto.service_payments_callback_url !== null,
  )
  @IsString({ message: 'service_payments_callback_url must be a string (an absolute https URL)' })
  @MaxLength(CALLBACK_URL_MAX, {
    message: `service_payments_callback_url must be at most ${CALLBACK_URL_MAX} characters`,
  })
  service_payments_callback_url?: string | null;

  @ApiPropertyOptional({
    ...CALLBACK_URL,
    description:
      'Where payout.completed, payout.failed and payout.reversed go; an absolute https URL, or null for none',
    example: 'https://shop.example.com/paygate/payouts',
  })
  @ValidateIf((dto: CreateMerchantDto) => dto.payouts_callback_url !== undefined && dto.payouts_callback_url !== null)
  @IsString({ message: 'payouts_callback_url must be a string (an absolute https URL)' })
  @MaxLength(CALLBACK_URL_MAX, { message: `payouts_callback_url must be at most ${CALLBACK_URL_MAX} characters` })
  payouts_callback_url?: string | null;
}

export class UpdateMerchantDto {
  @ApiPropertyOptional({ ...CALLBACK_URL, description: 'An absolute https URL, or null to remove it' })
  @ValidateIf(
    (dto: UpdateMerchantDto) => dto.collection_callback_url !== undefined && dto.collection_callback_url !== null,
  )
  @IsString({ message: 'collection_callback_url must be a string (an absolute https URL) or null' })
  @MaxLength(CALLBACK_URL_MAX, { message: `collection_callback_url must be at most ${CALLBACK_URL_MAX} characters` })
  collection_callback_url?: string | null;

  @ApiPropertyOptional({ ...CALLBACK_URL, description: 'An absolute https URL, or null to remove it' })
  @ValidateIf(
    (dto: UpdateMerchantDto) =>
      dto.service_payments_callback_url !== undefined && dto.service_payments_callback_url !== null,
  )
  @IsString({ message: 'service_payments_callback_url must be a string (an absolute https URL) or null' })
  @MaxLength(CALLBACK_URL_MAX, {
    message: `service_payments_callback_url must be at most ${CALLBACK_URL_MAX} characters`,
  })
  service_payments_callback_url?: string | null;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 0,
    maximum: WHOLE_UNITS_MAX,
    example: 5000000,
    description:
      "A payout above this many whole units of its currency waits for an owner's approval; null: none waits (5000000 until set)",
  })
  @ValidateIf(
    (dto: UpdateMerchantDto) => dto.payout_approval_threshold !== undefined && dto.payout_approval_threshold !== null,
  )
  @IsInt({ message: 'payout_approval_threshold must be a whole number or null' })
  @Min(0, { message: 'payout_approval_threshold must be at least 0' })
  @Max(WHOLE_UNITS_MAX, { message: `payout_approval_threshold must be at most ${WHOLE_UNITS_MAX}` })
  payout_approval_threshold?: number | null;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 1,
    maximum: WHOLE_UNITS_MAX,
    example: 20000000,
    description:
      'The most the payouts may total in a UTC day, whole units of their currency (those not FAILED or CANCELLED count); null: no cap',
  })
  @ValidateIf((dto: UpdateMerchantDto) => dto.payout_daily_cap !== undefined && dto.payout_daily_cap !== null)
  @IsInt({ message: 'payout_daily_cap must be a whole number or null' })
  @Min(1, { message: 'payout_daily_cap must be at least 1' })
  @Max(WHOLE_UNITS_MAX, { message: `payout_daily_cap must be at most ${WHOLE_UNITS_MAX}` })
  payout_daily_cap?: number | null;

  @ApiPropertyOptional({
    ...CALLBACK_URL,
    description:
      'Where payout.completed, payout.failed and payout.reversed go; an absolute https URL, or null to remove it',
  })
  @ValidateIf((dto: UpdateMerchantDto) => dto.payouts_callback_url !== undefined && dto.payouts_callback_url !== null)
  @IsString({ message: 'payouts_callback_url must be a string (an absolute https URL) or null' })
  @MaxLength(CALLBACK_URL_MAX, { message: `payouts_callback_url must be at most ${CALLBACK_URL_MAX} characters` })
  payouts_callback_url?: string | null;

  @ApiPropertyOptional({ enum: ['active', 'suspended'] })
  @ValidateIf((dto: UpdateMerchantDto) => dto.status !== undefined)
  @IsIn(['active', 'suspended'], { message: 'status must be active or suspended' })
  status?: 'active' | 'suspended';
}

export class IssueKeysDto {
  @ApiProperty({
    type: 'array',
    items: { type: 'string', enum: ['api', 'signing'] },
    minItems: 1,
    example: ['signing'],
    description: '`api` replaces public and secret key; `signing` replaces the signing key',
  })
  @IsArray({ message: 'keys must be an array of "api" and/or "signing"' })
  @ArrayMinSize(1, { message: 'keys must name at least one of "api", "signing"' })
  @IsIn(['api', 'signing'], { each: true, message: 'keys must contain only "api" and "signing"' })
  keys!: ('api' | 'signing')[];
}

export class InviteUserDto {
  @ApiProperty({
    maxLength: 254,
    pattern: EMAIL.source,
    example: 'amina@shop.example.com',
    description: 'One user per email, across merchants',
  })
  @IsString({ message: 'email must be a string' })
  @MaxLength(254, { message: 'email must be at most 254 characters' })
  @Matches(EMAIL, { message: 'email must be an email address' })
  email!: string;

  @ApiProperty({
    enum: DASHBOARD_ROLES,
    description: 'owner: everything; developer: keys, callback settings, resend, sandbox tools; viewer: read only',
  })
  @IsIn(DASHBOARD_ROLES, { message: `role must be one of ${DASHBOARD_ROLES.join(', ')}` })
  role!: DashboardRole;
}
