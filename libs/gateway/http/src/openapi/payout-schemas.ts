import { ApiProperty } from '@nestjs/swagger';
import { MONEY_OUT_REFERENCE_PATTERN, PAYOUT_STATUSES, PENDING_REASONS } from '@paygate/contracts';
import { ABOVE_ZERO, CURRENCY_PATTERN, MERCHANT_ID_PATTERN } from './schemas';

const nullableString = (description?: string) => ({ type: 'string', nullable: true, description }) as const;

export class PayoutDto {
  @ApiProperty({ pattern: MONEY_OUT_REFERENCE_PATTERN, example: 'payout-1001' })
  payout_reference!: string;

  @ApiProperty({ ...ABOVE_ZERO, example: 150000, description: 'Major units' })
  amount!: number;

  @ApiProperty({
    minimum: 0,
    example: 1500,
    description: "Paygate's fee, major units, taken from the wallet with the amount",
  })
  fee!: number;

  @ApiProperty({ pattern: CURRENCY_PATTERN, example: 'UGX' })
  currency!: string;

  @ApiProperty({ example: 'mtn_momo_ug' })
  provider_code!: string;

  @ApiProperty({ example: '256772000001' })
  msisdn!: string;

  @ApiProperty(nullableString("The account holder's name as the provider gave it at the name check"))
  recipient_name!: string | null;

  @ApiProperty({
    enum: PAYOUT_STATUSES,
    example: 'PENDING',
    description:
      "PENDING_APPROVAL (above your approval threshold: an owner approves it in the dashboard, or it is CANCELLED after 24 h), PENDING until the provider has said, COMPLETED, FAILED (only on the provider's word), REVERSED (the provider took back a completed payout: your wallet is credited back), CANCELLED",
  })
  status!: string;

  @ApiProperty({
    enum: PENDING_REASONS,
    nullable: true,
    type: 'string',
    example: 'provider_processing',
    description:
      'While PENDING: provider_processing, or provider_unconfirmed (the provider has not said whether it received it: Paygate asks it with the same reference until it says); null otherwise',
  })
  pending_reason!: string | null;

  @ApiProperty(nullableString('FAILED, REVERSED: what the provider said; CANCELLED: why'))
  failure_reason!: string | null;

  @ApiProperty({ example: false, description: 'true in a live deployment (real money), false in a test one' })
  livemode!: boolean;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;
}

export class PayoutPageDto {
  @ApiProperty({ type: [PayoutDto], description: 'Newest first' })
  payouts!: PayoutDto[];

  @ApiProperty(nullableString('Pass as cursor for the next page; null on the last page'))
  next_cursor!: string | null;
}

export class RecipientDto {
  @ApiProperty({ example: 'mtn_momo_ug' })
  provider_code!: string;

  @ApiProperty({ example: '256772000001' })
  msisdn!: string;

  @ApiProperty({ example: true, description: 'Whether the account can receive a payout' })
  can_receive!: boolean;

  @ApiProperty(nullableString("The account holder's name; null when the account cannot receive"))
  name!: string | null;
}

export class MoneyOutAttentionDto {
  @ApiProperty({ enum: ['REFUND', 'PAYOUT'] })
  kind!: string;

  @ApiProperty({ pattern: MERCHANT_ID_PATTERN })
  merchant_id!: string;

  @ApiProperty({ pattern: MONEY_OUT_REFERENCE_PATTERN, description: 'The refund_reference or payout_reference' })
  reference!: string;

  @ApiProperty({ description: 'Major units' })
  amount!: number;

  @ApiProperty({ pattern: CURRENCY_PATTERN })
  currency!: string;

  @ApiProperty()
  provider_code!: string;

  @ApiProperty({ example: 'PENDING' })
  status!: string;

  @ApiProperty({ enum: PENDING_REASONS, nullable: true, type: 'string' })
  pending_reason!: string | null;

  @ApiProperty({ minimum: 0, description: 'How many times it was sent to the provider (always with one reference)' })
  sends!: number;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;
}

export class MoneyOutAttentionListDto {
  @ApiProperty({ type: [MoneyOutAttentionDto], description: 'Oldest first' })
  money_out!: MoneyOutAttentionDto[];
}
