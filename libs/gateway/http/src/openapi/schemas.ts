import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  INTERNAL_REFERENCE_PATTERN,
  MERCHANT_REFERENCE_PATTERN,
  MONEY_OUT_REFERENCE_PATTERN,
  MONEY_OUT_STATUSES,
  PENDING_REASONS,
} from '@paygate/contracts';

/*
 * What the API answers, one class per concept: the OpenAPI document's response schemas are
 * generated from these, as its request schemas are from the DTOs that validate. Field names are
 * the wire's (snake_case); amounts are major units.
 */

export { INTERNAL_REFERENCE_PATTERN, MERCHANT_REFERENCE_PATTERN };

const unanchored = (pattern: string) => pattern.replace(/^\^|\$$/g, '');
/**
 * What callbacks are filed under: a collection's internal_reference (its refunds' and payment's callbacks too), or
 * `payout:` and a payout_reference for a payout's.
 */
export const CALLBACK_KEY_PATTERN = `^(?:${unanchored(INTERNAL_REFERENCE_PATTERN)}|payout:${unanchored(MONEY_OUT_REFERENCE_PATTERN)})$`;

export const PRN_PATTERN = '^[0-9]{1,32}$';
export const MSISDN_PATTERN = '^[0-9]{8,15}$';
export const CURRENCY_PATTERN = '^[A-Z]{3}$';
export const MERCHANT_ID_PATTERN = '^mer_[A-Za-z0-9]{1,64}$';
/**
 * The gateway refuses NUL in any string it is sent (input-guard): said in the schema so generated test data respects
 * it.
 */
export const NO_NUL_PATTERN = '^[^\\u0000]*$';
/** Not blank (a non-space character, as class-validator's `\S`) and no NUL. */
export const NOT_BLANK_PATTERN = '^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$';
/** Text a person typed (who credits a wallet, and why): not blank, no control character (C0, DEL, C1). */
export const TYPED_TEXT_PATTERN =
  '^[^\\u0000-\\u001f\\u007f-\\u009f]*[^\\s\\u0000-\\u001f\\u007f-\\u009f][^\\u0000-\\u001f\\u007f-\\u009f]*$';
/** An absolute http(s) URL without NUL; `format: uri` beside it says the rest. */
export const HTTP_URL_PATTERN = '^[Hh][Tt][Tt][Pp][Ss]?://[^\\u0000]+$';
/**
 * Amounts the gateway is sent are above 0: Nest writes 3.0's form, the document turns it into 3.1's `exclusiveMinimum:
 * 0`.
 */
export const ABOVE_ZERO = { minimum: 0, exclusiveMinimum: true } as const;

const STATUSES = ['PENDING', 'COMPLETED', 'FAILED', 'CANCELLED'];
const nullableString = (description?: string, format?: string) =>
  ({ type: 'string', nullable: true, description, format }) as const;

export class FieldErrorDto {
  @ApiProperty({ example: 'msisdn', description: 'The refused field, `body` for the body as a whole' })
  field!: string;

  @ApiProperty({ example: 'msisdn 256701234567 is not valid for provider mtn_momo_ug' })
  message!: string;
}

/** data of a 400: `errors` names each refused field (absent when the request as a whole is refused, e.g. its JSON). */
export class ValidationErrorDataDto {
  @ApiPropertyOptional({ type: [FieldErrorDto] })
  errors?: FieldErrorDto[];
}

export class RateLimitedDataDto {
  @ApiProperty({
    type: 'integer',
    minimum: 1,
    example: 1,
    description: 'Seconds until a request will be accepted again (as Retry-After)',
  })
  retry_after!: number;
}

export class ConflictDataDto {
  @ApiPropertyOptional({
    pattern: MERCHANT_REFERENCE_PATTERN,
    description: 'The merchant_reference used before for another request',
  })
  merchant_reference?: string;

  @ApiPropertyOptional({
    pattern: MONEY_OUT_REFERENCE_PATTERN,
    description: 'The refund_reference used before for another request',
  })
  refund_reference?: string;

  @ApiPropertyOptional({
    pattern: MONEY_OUT_REFERENCE_PATTERN,
    description: 'The payout_reference used before for another request',
  })
  payout_reference?: string;
}

export class UnavailableDataDto {
  @ApiPropertyOptional({
    pattern: INTERNAL_REFERENCE_PATTERN,
    description: 'The collection a provider could not be reached for (confirm again)',
  })
  internal_reference?: string;
}

/** An empty `data`, as most refusals carry. */
export class EmptyDataDto {}

export class CollectionRecordDto {
  @ApiProperty({ type: 'integer', minimum: 1, example: 1 })
  id!: number;

  @ApiProperty({
    pattern: MERCHANT_REFERENCE_PATTERN,
    example: 'order-1001',
    description: 'As sent, or the generated one (`MCTREF…`) for `auto`',
  })
  merchant_reference!: string;

  @ApiProperty({ pattern: INTERNAL_REFERENCE_PATTERN, example: 'PG7K3M9Q2X4T8V6B1N5R0D2F3H' })
  internal_reference!: string;

  @ApiProperty({ enum: ['COLLECTION'], example: 'COLLECTION' })
  transaction_type!: 'COLLECTION';

  @ApiProperty({ pattern: CURRENCY_PATTERN, example: 'UGX' })
  request_currency!: string;

  @ApiProperty({ example: 81000, minimum: 0 })
  request_amount!: number;

  @ApiProperty({ pattern: CURRENCY_PATTERN, example: 'UGX' })
  transaction_currency!: string;

  @ApiProperty({ example: 81000, minimum: 0, description: 'What the customer pays' })
  transaction_amount!: number;

  @ApiProperty({ example: 1215, minimum: 0 })
  transaction_fee!: number;

  @ApiProperty({ example: false })
  charge_customer!: boolean;

  @ApiProperty({
    example: 79785,
    minimum: 0,
    description: 'What the merchant is credited: transaction_amount − transaction_fee',
  })
  total_credit!: number;

  @ApiProperty({ example: 'mtn_momo_ug' })
  provider_code!: string;

  @ApiProperty({ enum: STATUSES, example: 'PENDING' })
  transaction_status!: string;

  @ApiProperty({ example: 'Transaction initiated. Pending customer confirmation' })
  status_message!: string;

  @ApiPropertyOptional({
    format: 'uri',
    description: 'Card: the checkout page to send the customer to, while it is open',
  })
  payment_url?: string;

  @ApiProperty({
    example: false,
    description:
      'Opened by a live deployment (real money); false in a test deployment, and for collections from before MODE',
  })
  livemode!: boolean;
}

export class ServicePaymentDto {
  @ApiProperty({ pattern: PRN_PATTERN, example: '2250000001301', description: 'The PRN' })
  account_number!: string;

  @ApiProperty({ enum: ['PENDING', 'COMPLETED', 'FAILED'], example: 'COMPLETED' })
  transaction_status!: string;

  @ApiProperty({ example: 'PRN paid successfully' })
  status_message!: string;

  @ApiProperty({ ...nullableString('The biller’s service, once the PRN was looked up'), example: 'URA - Domestic Tax' })
  service_name!: string | null;

  @ApiProperty({ example: 25000, minimum: 0 })
  transaction_amount!: number;

  @ApiProperty({ pattern: CURRENCY_PATTERN, example: 'UGX' })
  transaction_currency!: string;
}

export class CollectionDetailsDto extends CollectionRecordDto {
  @ApiProperty({ enum: ['MOBILE_MONEY', 'CARD'], example: 'MOBILE_MONEY' })
  transaction_method!: string;

  @ApiProperty({
    ...nullableString(
      'Mobile money: the paying msisdn (or the masked number reported on completion); card: the masked card number once paid',
    ),
  })
  transaction_account!: string | null;

  @ApiProperty({ example: 'Jane Doe' })
  customer_name!: string;

  @ApiPropertyOptional({
    pattern: PRN_PATTERN,
    example: '2250000001301',
    description: 'Collect-for-payment: the PRN the collection pays',
  })
  prn?: string;

  @ApiPropertyOptional({
    type: ServicePaymentDto,
    nullable: true,
    description: 'Collect-for-payment: the PRN payment, null before service-payments knows it',
  })
  service_payment?: ServicePaymentDto | null;

  @ApiPropertyOptional({
    minimum: 0,
    example: 0,
    description: 'GET by reference: what its COMPLETED refunds returned, in major units',
  })
  amount_refunded?: number;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;
}

export class RefundDto {
  @ApiProperty({ pattern: MONEY_OUT_REFERENCE_PATTERN, example: 'refund-1001' })
  refund_reference!: string;

  @ApiProperty({ pattern: INTERNAL_REFERENCE_PATTERN, example: 'PG7K3M9Q2X4T8V6B1N5R0D2F3H' })
  internal_reference!: string;

  @ApiProperty({ ...ABOVE_ZERO, example: 20000, description: 'Major units' })
  amount!: number;

  @ApiProperty({ pattern: CURRENCY_PATTERN, example: 'UGX' })
  currency!: string;

  @ApiProperty({
    enum: MONEY_OUT_STATUSES,
    example: 'PENDING',
    description: 'PENDING until the provider has said; COMPLETED or FAILED (only on its word) are final',
  })
  status!: string;

  @ApiProperty({
    enum: PENDING_REASONS,
    nullable: true,
    type: 'string',
    example: 'provider_processing',
    description:
      'While PENDING: provider_processing (sent, or about to be), or provider_unconfirmed (the provider has not said whether it received it: Paygate asks it with the same reference until it says); null once final',
  })
  pending_reason!: string | null;

  @ApiProperty(nullableString('When FAILED: what the provider said'))
  failure_reason!: string | null;

  @ApiProperty(nullableString('The reason given with the request'))
  reason!: string | null;

  @ApiProperty({ example: false, description: 'true in a live deployment (real money), false in a test one' })
  livemode!: boolean;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;
}

export class RefundPageDto {
  @ApiProperty({ type: [RefundDto] })
  refunds!: RefundDto[];

  @ApiProperty(nullableString('Pass as cursor for the next page; null on the last page'))
  next_cursor!: string | null;
}

export class CollectionPageDto {
  @ApiProperty({ type: [CollectionDetailsDto], description: 'Newest first' })
  collections!: CollectionDetailsDto[];

  @ApiProperty(nullableString('Pass as `cursor` for the next page; null on the last page'))
  next_cursor!: string | null;
}

export class CollectForPaymentAcceptedDto {
  @ApiProperty({ pattern: INTERNAL_REFERENCE_PATTERN, example: 'PG7K3M9Q2X4T8V6B1N5R0D2F3H' })
  internal_reference!: string;

  @ApiProperty({ pattern: MERCHANT_REFERENCE_PATTERN, example: 'order-1001' })
  merchant_reference!: string;
}

export class ConfirmAcceptedDto {
  @ApiPropertyOptional({
    format: 'uri',
    description: 'Card: the checkout page to send the customer to (mobile money: data is empty)',
  })
  payment_url?: string;
}

export class FeeScheduleDto {
  @ApiProperty({ example: 1.5, minimum: 0 })
  percent!: number;

  @ApiProperty({ example: 0, minimum: 0 })
  fixed!: number;

  @ApiPropertyOptional({ example: 100, minimum: 0 })
  min?: number;

  @ApiPropertyOptional({ minimum: 0 })
  max?: number;
}

export class PaymentProviderDto {
  @ApiProperty({ example: 'mtn_momo_ug' })
  provider_code!: string;

  @ApiProperty({ example: 'MTN Mobile Money Uganda' })
  provider_name!: string;

  @ApiProperty({ enum: ['MOBILE_MONEY', 'CARD'], example: 'MOBILE_MONEY' })
  transaction_method!: string;

  @ApiProperty({ pattern: CURRENCY_PATTERN, example: 'UGX' })
  transaction_currency!: string;

  @ApiProperty({ pattern: '^[A-Z]{2}$', example: 'UG' })
  country_code!: string;

  @ApiProperty({ example: 500, minimum: 0 })
  min_amount!: number;

  @ApiProperty({ example: 5000000, minimum: 0 })
  max_amount!: number;

  @ApiProperty({
    type: [String],
    example: ['25676', '25677'],
    description: 'Mobile money: number prefixes with the calling code; card: empty',
  })
  prefixes!: string[];

  @ApiProperty({ type: FeeScheduleDto })
  fee!: FeeScheduleDto;

  @ApiProperty({
    type: () => PayoutTermsDto,
    nullable: true,
    description: 'Payouts to its numbers (POST /v1/payouts): limits and fee; null when it takes none',
  })
  payout!: PayoutTermsDto | null;
}

export class PayoutTermsDto {
  @ApiProperty({ example: 1000, minimum: 0 })
  min_amount!: number;

  @ApiProperty({ example: 10000000, minimum: 0 })
  max_amount!: number;

  @ApiProperty({ type: FeeScheduleDto, description: "Paygate's fee per payout, taken from the wallet with the amount" })
  fee!: FeeScheduleDto;
}

export class PaymentProvidersDto {
  @ApiProperty({ type: [PaymentProviderDto] })
  payment_providers!: PaymentProviderDto[];
}

export class WalletBalanceDto {
  @ApiProperty({ pattern: CURRENCY_PATTERN, example: 'UGX' })
  currency!: string;

  @ApiProperty({ example: 79785 })
  balance!: number;

  @ApiProperty({
    example: 78570,
    description: 'balance less holds (fees of PRNs being validated, PRN payments under way)',
  })
  available_balance!: number;

  @ApiProperty({ example: false, description: 'The wallet of a live deployment (real money)' })
  livemode!: boolean;
}

export class WalletTransferDto {
  @ApiProperty()
  transfer_id!: string;

  @ApiProperty({ example: 'customer_funds:UGX', description: 'The ledger account debited' })
  debit_account!: string;

  @ApiProperty({ example: 'merchant_wallet:mer_7Kq2:UGX', description: 'The ledger account credited' })
  credit_account!: string;

  @ApiProperty({ example: 79785, description: 'Major units, positive' })
  amount!: number;
}

export class WalletTransactionDto {
  @ApiProperty({ pattern: '^[0-9]+$', description: 'Grows with each entry of the merchant' })
  id!: string;

  @ApiProperty({
    enum: ['collection_credit', 'top_up', 'hold', 'hold_release', 'hold_capture', 'money_out_reversal'],
    description:
      'collection_credit and top_up credit the wallet; hold sets part of it aside, hold_release gives it back, hold_capture pays it out; money_out_reversal credits back a payout its provider reversed',
  })
  type!: string;

  @ApiProperty({ pattern: CURRENCY_PATTERN, example: 'UGX' })
  currency!: string;

  @ApiProperty({ example: 79785, description: 'What the entry changed the balance by, in major units (negative: out)' })
  balance_change!: number;

  @ApiProperty({ example: 79785, description: 'What the entry changed available_balance by, in major units' })
  available_change!: number;

  @ApiProperty(nullableString('The hold a hold entry places, releases or captures'))
  hold_id!: string | null;

  @ApiProperty(nullableString("A hold's purpose: FEE, PRN_PAYMENT, REFUND, PAYOUT or OTHER"))
  purpose!: string | null;

  @ApiProperty(nullableString('The collection the entry is for'))
  internal_reference!: string | null;

  @ApiProperty({
    type: [WalletTransferDto],
    description: 'The double-entry transfers it posted (none for a hold or its release)',
  })
  transfers!: WalletTransferDto[];

  @ApiProperty({ description: 'The wallet holds the money of a live deployment; false in a test deployment' })
  livemode!: boolean;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;
}

export class WalletTransactionPageDto {
  @ApiProperty({ type: [WalletTransactionDto], description: 'Newest first' })
  transactions!: WalletTransactionDto[];

  @ApiProperty(nullableString('Pass as `cursor` for the next page; null on the last page'))
  next_cursor!: string | null;
}

export class CallbacksResentDto {
  @ApiProperty({ pattern: CALLBACK_KEY_PATTERN, example: 'PG7K3M9Q2X4T8V6B1N5R0D2F3H' })
  internal_reference!: string;

  @ApiProperty({ type: 'integer', minimum: 1, example: 2, description: 'How many callbacks will be delivered again' })
  deliveries!: number;
}

export class MerchantDto {
  @ApiProperty({ pattern: MERCHANT_ID_PATTERN, example: 'mer_7Hc2kq9Z' })
  id!: string;

  @ApiProperty({ example: 'Kampala Books' })
  name!: string;

  @ApiProperty({ enum: ['active', 'suspended'], example: 'active' })
  status!: string;

  @ApiProperty({ example: 'pk_test_3f9a…', description: 'The public-key header of its requests' })
  public_key!: string;

  @ApiProperty(nullableString(undefined, 'uri'))
  collection_callback_url!: string | null;

  @ApiProperty(nullableString(undefined, 'uri'))
  service_payments_callback_url!: string | null;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    minimum: 0,
    example: 5000000,
    description:
      "A payout above this many whole units of its currency waits for an owner's approval (PENDING_APPROVAL); null: none waits",
  })
  payout_approval_threshold!: number | null;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    minimum: 1,
    example: null,
    description:
      'The most the payouts (those not FAILED or CANCELLED) may total in a UTC day, whole units of their currency; null: no cap',
  })
  payout_daily_cap!: number | null;

  @ApiProperty(nullableString('Where payout.* callbacks go', 'uri'))
  payouts_callback_url!: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;
}

/** The merchant as created or re-keyed: the only answers that show its secret and signing keys. */
export class InvitedUserDto {
  @ApiProperty({ pattern: '^usr_[A-Za-z0-9_-]{16}$' })
  user_id!: string;

  @ApiProperty({ example: 'amina@shop.example.com' })
  email!: string;

  @ApiProperty({ enum: ['owner', 'developer', 'viewer'] })
  role!: string;

  @ApiProperty({
    format: 'uri',
    description:
      'Where the user sets a password: works once, for 24 hours, and starts with the address this request was sent to. Give it only to the user; it is shown once.',
  })
  invite_url!: string;

  @ApiProperty({ format: 'date-time' })
  invite_expires_at!: string;
}

export class IssuedMerchantDto extends MerchantDto {
  @ApiProperty({ example: 'sk_test_…' })
  secret_key!: string;

  @ApiProperty({ pattern: '^[A-Za-z0-9]{48}$', description: 'Key of every signature Paygate makes for the merchant' })
  signing_key!: string;
}

export class DeliveryAttemptDto {
  @ApiProperty({ type: 'integer', minimum: 1 })
  attempt!: number;

  @ApiProperty({ format: 'date-time' })
  started_at!: string;

  @ApiProperty({ type: 'integer', minimum: 0 })
  duration_ms!: number;

  @ApiProperty({ type: 'integer', nullable: true, description: 'The receiver’s HTTP status, null when none came' })
  status_code!: number | null;

  @ApiProperty({ description: 'The start of the receiver’s answer' })
  response_excerpt!: string;

  @ApiProperty(nullableString())
  error!: string | null;
}

export class DeliveryDto {
  @ApiProperty({ example: 'msg_0b6f4c1e-6a4e-4a59-9d44-2f1c3e0a7b21' })
  webhook_id!: string;

  @ApiProperty({ pattern: MERCHANT_ID_PATTERN })
  merchant_id!: string;

  @ApiProperty({
    pattern: CALLBACK_KEY_PATTERN,
    description: "The collection's internal_reference, or payout:<payout_reference> for a payout's callbacks",
  })
  internal_reference!: string;

  @ApiProperty({ example: 'transaction.completed' })
  event!: string;

  @ApiProperty(nullableString('null when the merchant has no callback URL for it', 'uri'))
  target_url!: string | null;

  @ApiProperty({ enum: ['pending', 'delivering', 'delivered', 'abandoned', 'undeliverable'] })
  state!: string;

  @ApiProperty(nullableString(undefined, 'date-time'))
  next_attempt_at!: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty(nullableString(undefined, 'date-time'))
  delivered_at!: string | null;

  @ApiProperty({ type: 'integer', nullable: true })
  last_status!: number | null;

  @ApiProperty(nullableString())
  last_error!: string | null;

  @ApiProperty({ type: [DeliveryAttemptDto] })
  attempts!: DeliveryAttemptDto[];
}

export class DeliveriesDto {
  @ApiProperty({ type: [DeliveryDto] })
  deliveries!: DeliveryDto[];
}

export class CallbackPageDto {
  @ApiProperty({ type: [DeliveryDto], description: 'Newest first' })
  deliveries!: DeliveryDto[];

  @ApiProperty(nullableString('Pass as `cursor` for the next page; null on the last page'))
  next_cursor!: string | null;
}

export class DeliveriesRetriedDto {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'How many abandoned deliveries will be tried again' })
  deliveries!: number;
}

export class TopUpDto {
  @ApiProperty({ pattern: MERCHANT_ID_PATTERN })
  merchant_id!: string;

  @ApiProperty({ pattern: CURRENCY_PATTERN, example: 'UGX' })
  currency!: string;

  @ApiProperty({
    pattern: MERCHANT_REFERENCE_PATTERN,
    description: 'As sent, or generated: the same reference is the same top-up',
  })
  reference!: string;

  @ApiProperty({ example: 50000 })
  balance!: number;

  @ApiProperty({ example: 50000 })
  available!: number;
}

/** The top-up body; parseTopUp (admin/wallets.controller.ts) reads it field by field. */
export class TopUpRequestDto {
  @ApiProperty({ pattern: MERCHANT_ID_PATTERN, example: 'mer_7Hc2kq9Z' })
  merchant_id!: string;

  @ApiProperty({ pattern: CURRENCY_PATTERN, example: 'UGX', description: 'A supported currency' })
  currency!: string;

  @ApiProperty({
    ...ABOVE_ZERO,
    example: 50000,
    description: 'Above 0, in major units, no more decimals than the currency has',
  })
  amount!: number;

  @ApiPropertyOptional({
    pattern: MERCHANT_REFERENCE_PATTERN,
    description: 'The same reference is the same top-up; generated when absent',
  })
  reference?: string;

  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 64,
    pattern: TYPED_TEXT_PATTERN,
    example: 'ops@paygate.example',
    description: 'Who credits the wallet, recorded with the credit; required by a live deployment',
  })
  operator?: string;

  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 200,
    pattern: TYPED_TEXT_PATTERN,
    example: 'float advance for November, ticket OPS-118',
    description:
      'Why the wallet is credited, recorded with the credit; required by a live deployment (and with operator)',
  })
  reason?: string;
}
