import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import type {
  OperationObject,
  ParameterObject,
  SchemaObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { MONEY_OUT_REFERENCE_PATTERN, PENDING_REASONS } from '@paygate/contracts';
import {
  ABOVE_ZERO,
  CURRENCY_PATTERN,
  INTERNAL_REFERENCE_PATTERN,
  MERCHANT_REFERENCE_PATTERN,
  MSISDN_PATTERN,
  PRN_PATTERN,
} from './schemas';

/*
 * The callbacks Paygate sends (docs/webhooks.md), for the document's `webhooks` section. The
 * dispatcher builds them in libs/webhooks/domain, which the gateway may not import; the e2e
 * callback receivers check what they receive against these schemas.
 */

/** What every callback payload starts with: the transaction's ids. */
class CallbackPayloadDto {
  @ApiProperty({ type: 'integer', minimum: 1 })
  id!: number;

  @ApiProperty({ pattern: MERCHANT_REFERENCE_PATTERN })
  merchant_reference!: string;

  @ApiProperty({ pattern: INTERNAL_REFERENCE_PATTERN })
  internal_reference!: string;
}

export class CollectionCallbackPayloadDto extends CallbackPayloadDto {
  @ApiProperty({ enum: ['COLLECTION'] })
  transaction_type!: string;

  @ApiProperty({ pattern: CURRENCY_PATTERN })
  request_currency!: string;

  @ApiProperty({ minimum: 0 })
  request_amount!: number;

  @ApiProperty({ pattern: CURRENCY_PATTERN })
  transaction_currency!: string;

  @ApiProperty({ minimum: 0 })
  transaction_amount!: number;

  @ApiProperty({ minimum: 0, description: 'What the acknowledgement calls transaction_fee' })
  transaction_charge!: number;

  @ApiProperty()
  charge_customer!: boolean;

  @ApiProperty({ minimum: 0 })
  total_credit!: number;

  @ApiProperty({ type: 'string', nullable: true })
  transaction_account!: string | null;

  @ApiProperty()
  provider_code!: string;

  @ApiProperty()
  customer_name!: string;

  @ApiProperty({ enum: ['PENDING', 'COMPLETED', 'FAILED', 'CANCELLED'] })
  transaction_status!: string;

  @ApiProperty()
  status_message!: string;

  @ApiPropertyOptional({ description: 'Only in transaction.charges: the provider’s name' })
  institution_name?: string;

  @ApiProperty({
    description: 'A collection of a live deployment (real money); false for test data and test callbacks',
  })
  livemode!: boolean;
}

export class PaymentCallbackPayloadDto extends CallbackPayloadDto {
  @ApiProperty({ enum: ['SERVICE_PAYMENT'] })
  transaction_type!: string;

  @ApiProperty({ pattern: CURRENCY_PATTERN })
  request_currency!: string;

  @ApiProperty({ minimum: 0, description: 'What the PRN is paid' })
  request_amount!: number;

  @ApiProperty({ enum: ['COMPLETED', 'FAILED'] })
  transaction_status!: string;

  @ApiProperty({ pattern: PRN_PATTERN, description: 'The PRN' })
  account_number!: string;

  @ApiProperty({ minimum: 0 })
  transaction_charge!: number;

  @ApiProperty({ minimum: 0, description: 'What the customer paid' })
  transaction_amount!: number;

  @ApiProperty()
  customer_name!: string;

  @ApiProperty({ example: 'URA - Domestic Tax' })
  service_name!: string;

  @ApiProperty()
  status_message!: string;

  @ApiProperty({
    type: 'object',
    description: 'Reserved for biller-specific details: `{}`',
    additionalProperties: false,
  })
  additional_details!: Record<string, never>;

  @ApiProperty({ description: 'A payment of a live deployment (real money); false for test data' })
  livemode!: boolean;
}

/** The refund record as GET /v1/refunds/{refund_reference} shows it once final, with the collection's merchant_reference. */
export class RefundCallbackPayloadDto {
  @ApiProperty({ pattern: MONEY_OUT_REFERENCE_PATTERN, example: 'refund-1001' })
  refund_reference!: string;

  @ApiProperty({ pattern: INTERNAL_REFERENCE_PATTERN, description: 'The refunded collection’s' })
  internal_reference!: string;

  @ApiProperty({ pattern: MERCHANT_REFERENCE_PATTERN, description: 'The refunded collection’s' })
  merchant_reference!: string;

  @ApiProperty({ ...ABOVE_ZERO, example: 20000, description: 'Major units' })
  amount!: number;

  @ApiProperty({ pattern: CURRENCY_PATTERN, example: 'UGX' })
  currency!: string;

  @ApiProperty({
    enum: ['COMPLETED', 'FAILED'],
    description: 'COMPLETED (refund.completed) or FAILED (refund.failed), on the provider’s word',
  })
  status!: string;

  // Typed as the record's (generators refuse a property whose only type is null), always null here.
  @ApiProperty({
    enum: PENDING_REASONS,
    type: 'string',
    nullable: true,
    description: 'Always null in a callback: the refund is final',
  })
  pending_reason!: null;

  @ApiProperty({ type: 'string', nullable: true, description: 'When FAILED: what the provider said' })
  failure_reason!: string | null;

  @ApiProperty({ type: 'string', nullable: true, description: 'The reason given with the request' })
  reason!: string | null;

  @ApiProperty({ example: false, description: 'true in a live deployment (real money), false in a test one' })
  livemode!: boolean;

  @ApiProperty({ format: 'date-time', description: 'When the refund was requested' })
  created_at!: string;

  @ApiProperty({ format: 'date-time', description: 'When it became final' })
  updated_at!: string;
}

/** The payout record as the merchant API shows it, at the state the callback tells of. */
export class PayoutCallbackPayloadDto {
  @ApiProperty({ pattern: MONEY_OUT_REFERENCE_PATTERN, example: 'payout-1001' })
  payout_reference!: string;

  @ApiProperty({ ...ABOVE_ZERO, example: 150000, description: 'Major units' })
  amount!: number;

  @ApiProperty({
    minimum: 0,
    example: 1500,
    description: 'Paygate’s fee, paid from the wallet with the amount; major units',
  })
  fee!: number;

  @ApiProperty({ pattern: CURRENCY_PATTERN, example: 'UGX' })
  currency!: string;

  @ApiProperty({ example: 'mtn_momo_ug' })
  provider_code!: string;

  @ApiProperty({ pattern: MSISDN_PATTERN, example: '256772000001' })
  msisdn!: string;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'The account holder’s name as the provider gave it at the name check',
  })
  recipient_name!: string | null;

  @ApiProperty({
    enum: ['COMPLETED', 'FAILED', 'CANCELLED', 'REVERSED'],
    description:
      'COMPLETED (payout.completed); FAILED on the provider’s word, or CANCELLED when never approved (payout.failed); REVERSED (payout.reversed)',
  })
  status!: string;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'FAILED and REVERSED: what the provider said; CANCELLED: why',
  })
  failure_reason!: string | null;

  @ApiProperty({ example: false, description: 'true in a live deployment (real money), false in a test one' })
  livemode!: boolean;

  @ApiProperty({ format: 'date-time', description: 'When the payout was requested' })
  created_at!: string;

  @ApiProperty({ format: 'date-time', description: 'When it reached this status' })
  updated_at!: string;
}

export const WEBHOOK_PAYLOADS = [
  CollectionCallbackPayloadDto,
  PaymentCallbackPayloadDto,
  RefundCallbackPayloadDto,
  PayoutCallbackPayloadDto,
];

const header = (name: string, description: string, pattern?: string): ParameterObject => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: { type: 'string', ...(pattern && { pattern }) },
});

/** Standard Webhooks (standardwebhooks.com) headers, and the HMAC of four of the payload's fields (`signed`). */
const signatureHeaders = (signed: string) => [
  header('webhook-id', 'The same on every retry and resend of one callback: deduplicate by it'),
  header('webhook-timestamp', 'Unix seconds when this attempt was signed', '^[0-9]+$'),
  header(
    'webhook-signature',
    '`v1,` and the base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>`, keyed by the signing key (docs/webhooks.md)',
    '^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$',
  ),
  header('hmac-signature', `Hex HMAC-SHA256 of \`${signed}\``, '^[0-9a-f]{64}$'),
];

const RECORD_SIGNED = '<id>:<internal_reference>:<transaction_status>:<merchant_reference>';
const REFUND_SIGNED = '<refund_reference>:<internal_reference>:<status>:<merchant_reference>';
const PAYOUT_SIGNED = '<payout_reference>:<status>:<provider_code>:<msisdn>';

/** Where each kind of callback is sent, and what its hmac-signature covers, by the event's first word. */
const KINDS: Record<string, { url: string; signed: string }> = {
  transaction: { url: 'collection_callback_url', signed: RECORD_SIGNED },
  test: { url: 'collection_callback_url', signed: RECORD_SIGNED },
  payment: { url: 'service_payments_callback_url', signed: RECORD_SIGNED },
  refund: { url: 'collection_callback_url', signed: REFUND_SIGNED },
  payout: { url: 'payouts_callback_url', signed: PAYOUT_SIGNED },
};
const kindOf = (event: string) => KINDS[event.split('.')[0]];

const EVENTS: {
  event: string;
  payload: (typeof WEBHOOK_PAYLOADS)[number];
  when: string;
}[] = [
  {
    event: 'transaction.charges',
    payload: CollectionCallbackPayloadDto,
    when: 'Initialize accepted with require_confirmation true: show the charge, then confirm',
  },
  { event: 'transaction.completed', payload: CollectionCallbackPayloadDto, when: 'The collection is COMPLETED' },
  { event: 'transaction.failed', payload: CollectionCallbackPayloadDto, when: 'The collection FAILED' },
  { event: 'transaction.cancelled', payload: CollectionCallbackPayloadDto, when: 'The collection was CANCELLED' },
  {
    event: 'payment.completed',
    payload: PaymentCallbackPayloadDto,
    when: 'The biller accepted the payment of a collect-for-payment’s PRN',
  },
  {
    event: 'payment.failed',
    payload: PaymentCallbackPayloadDto,
    when: 'A collect-for-payment’s PRN was not eligible, or was not paid',
  },
  {
    event: 'refund.completed',
    payload: RefundCallbackPayloadDto,
    when: 'The provider returned a refund to the customer',
  },
  {
    event: 'refund.failed',
    payload: RefundCallbackPayloadDto,
    when: 'The provider refused a refund (failure_reason says why); the amount is refundable again',
  },
  { event: 'payout.completed', payload: PayoutCallbackPayloadDto, when: 'The provider paid a payout’s recipient' },
  {
    event: 'payout.failed',
    payload: PayoutCallbackPayloadDto,
    when: 'A payout’s money did not leave: the provider refused it (status FAILED), or it was not approved within 24 h (status CANCELLED); its hold is released',
  },
  {
    event: 'payout.reversed',
    payload: PayoutCallbackPayloadDto,
    when: 'The provider took back a completed payout; the amount and fee are back in the wallet',
  },
  {
    event: 'test.callback',
    payload: CollectionCallbackPayloadDto,
    when: 'Send test callback in the dashboard: about no transaction (internal_reference PG000000000000000000000000, merchant_reference test-callback, amounts 0), to the collection callback URL',
  },
];

/**
 * The webhooks' own tag: generators group operations by tag into one class or module each, so
 * webhooks sharing `callbacks` with the merchant's callback routes made them overwrite each other.
 */
export const WEBHOOKS_TAG = 'callback events';

const operationId = (event: string) =>
  event.replace(/\.(\w)/g, (_, letter: string) => letter.toUpperCase()) + 'Callback';

/** `transaction.charges` → `TransactionChargesEvent`: the name of the body's schema in components. */
const bodySchemaName = (event: string) =>
  event.replace(/(^|\.)(\w)/g, (_, __: string, letter: string) => letter.toUpperCase()) + 'Event';

/**
 * Each callback body as a named schema (for components.schemas): an inline body gives
 * generators a model without a name (typescript-fetch then imports `type ,` and fails to compile).
 */
export function webhookBodySchemas(): Record<string, SchemaObject> {
  return Object.fromEntries(
    EVENTS.map(({ event, payload }) => [
      bodySchemaName(event),
      {
        type: 'object',
        description: `The body of a ${event} callback`,
        required: ['event', 'payload'],
        additionalProperties: false,
        properties: { event: { type: 'string', enum: [event] }, payload: { $ref: getSchemaPath(payload) } },
      },
    ]),
  );
}

/**
 * One webhook per event type: POSTed to the merchant's collection (transaction.*, refund.*), service payments
 * (payment.*) or payouts (payout.*) callback URL.
 */
export function webhooks(): Record<string, { post: OperationObject }> {
  return Object.fromEntries(
    EVENTS.map(({ event, when }) => [
      event,
      {
        post: {
          operationId: operationId(event),
          summary: `${event} callback`,
          description: `${when}. Sent to the merchant's ${kindOf(event).url}, signed with the merchant's signing key; any 2xx within CALLBACK_TIMEOUT_MS acknowledges it, anything else is retried (docs/webhooks.md).`,
          tags: [WEBHOOKS_TAG],
          // Paygate sends these; a merchant's generated client has nothing to call. openapi-generator
          // leaves `x-internal` operations out (its typescript-fetch webhook files do not compile),
          // and still generates the *Event body schemas as models a receiver parses callbacks with.
          'x-internal': true,
          security: [],
          parameters: signatureHeaders(kindOf(event).signed),
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: `#/components/schemas/${bodySchemaName(event)}` } } },
          },
          responses: {
            '200': { description: 'Any 2xx acknowledges the callback' },
            '410': { description: 'Gone: stops this delivery at once' },
          },
        },
      },
    ]),
  );
}
