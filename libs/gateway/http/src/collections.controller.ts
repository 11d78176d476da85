import { Body, Controller, Get, Inject, NotFoundException, Param, Post, Query, Res } from '@nestjs/common';
import { ApiBody, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import {
  CollectForPayment,
  ConfirmCollection,
  FindCollection,
  FindServicePayment,
  InitializeCollection,
  ListCollections,
  RefundedAmount,
  COLLECTION_STATUSES,
  TRANSACTION_METHODS,
  planCollection,
  type ServicePaymentSummary,
  type CollectionRequest,
  type Acknowledgement,
  type ConfirmCollectionCommand,
  type FindCollectionQuery,
  type InitializeCollectionCommand,
} from '@paygate/contracts';
import type { Merchant } from '@paygate/merchants';
import { toMajorUnits } from '@paygate/money';
import { envelope, INFRASTRUCTURE, type Infrastructure } from '@paygate/platform';
import { annotateSpan } from '@paygate/tracing';
import { CollectForPaymentDto, ConfirmCollectionDto, InitializeCollectionDto } from './dto/initialize-collection.dto';
import { collectionCursor, parseListing } from './collection-listing';
import type { GatewayConfig } from './gateway-config';
import { CurrentMerchant, MerchantApi, RequireSecretKey } from './guards';
import { CreatedRangeParameters, PageParameters } from './page-cursor';
import { ApiAnswer, ApiConflict, ApiNotFound, MerchantOperation, PathParam } from './openapi/responses';
import {
  CollectForPaymentAcceptedDto,
  CollectionDetailsDto,
  CollectionPageDto,
  CollectionRecordDto,
  ConfirmAcceptedDto,
  INTERNAL_REFERENCE_PATTERN,
  MERCHANT_REFERENCE_PATTERN,
} from './openapi/schemas';
import { GATEWAY_CONFIG } from './tokens';
import { validateBody, ValidationFailed } from './validation';

/** Fields the catalogue rules read: they are checked only once their shape is valid. */
const PLANNED_FIELDS = [
  'provider_code',
  'transaction_method',
  'currency',
  'amount',
  'msisdn',
  'redirect_url',
  'charge_customer',
];

/**
 * References in a body or query that cannot exist (wrong characters, too long) are answered like
 * unknown ones without asking the service; in the path, the route does not serve them (PathParam).
 * Text no store can hold never gets here (the platform's input guard).
 */
const INTERNAL_REFERENCE = new RegExp(INTERNAL_REFERENCE_PATTERN);
const MERCHANT_REFERENCE = /^[A-Za-z0-9._:/-]{1,64}$/;
const unknownTransaction = () => new NotFoundException('transaction not found');

function presentServicePayment(payment: ServicePaymentSummary) {
  return {
    account_number: payment.prn,
    transaction_status: payment.status,
    status_message: payment.statusMessage,
    service_name: payment.serviceName,
    transaction_amount: toMajorUnits(payment.amount, payment.currency),
    transaction_currency: payment.currency,
  };
}

/**
 * Initialize and confirm start work that finishes later: 202 Accepted. The request's span names
 * the collection, so an SRE finds the payment's trace by its internal_reference too.
 */
function accepted(reply: FastifyReply, ack: Acknowledgement) {
  const reference = ack.data.internal_reference;
  if (typeof reference === 'string') annotateSpan({ 'paygate.internal_reference': reference });
  void reply.status(202);
  return envelope(202, ack.message, ack.data);
}

const CONDITIONALLY_REQUIRED = {
  msisdn: 'msisdn is required for MOBILE_MONEY',
  redirect_url: 'redirect_url is required for CARD',
};

@ApiTags('collections')
@Controller()
@MerchantApi()
export class CollectionsController {
  constructor(
    @Inject(INFRASTRUCTURE) private readonly infrastructure: Infrastructure,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Post(['v1/collections/initialize', 'collections/initialize'])
  @MerchantOperation({
    id: 'initializeCollection',
    summary: 'Start a collection by mobile money or card',
    description:
      'Validates every field (provider, currency, limits, msisdn network, fee) before anything is sent. The same body again with the same merchant_reference replays the first acknowledgement and creates nothing.',
    secretKey: false,
    body: true,
    invalid: 'data.errors names each bad field',
  })
  @ApiBody({ type: InitializeCollectionDto })
  @ApiAnswer(
    202,
    'Accepted: data is the transaction record (PENDING); payment_url too for a card collection without confirmation',
    CollectionRecordDto,
  )
  @ApiConflict('merchant_reference already used for a different request')
  async initialize(
    @CurrentMerchant() merchant: Merchant,
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const command = await this.validCollection(InitializeCollectionDto, merchant, body);
    const ack = await this.infrastructure.commands.send(new InitializeCollection(command));
    return accepted(reply, ack);
  }

  @Post(['v1/collections/collect-for-payment', 'collections/collect-for-payment'])
  @MerchantOperation({
    id: 'collectForPayment',
    summary: 'Collect from a customer, then pay a PRN from the collected funds',
    description:
      'Every initialize field plus prn. The PRN is validated with the biller before the customer is asked to pay; when it is not eligible, payment.failed and transaction.cancelled follow. The same body again replays the acknowledgement.',
    secretKey: false,
    body: true,
    invalid: 'data.errors names each bad field',
  })
  @ApiBody({ type: CollectForPaymentDto })
  @ApiAnswer(202, 'Accepted; the PRN is validated before the customer is asked to pay', CollectForPaymentAcceptedDto)
  @ApiConflict('merchant_reference already used for a different request')
  async collectForPayment(
    @CurrentMerchant() merchant: Merchant,
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const command = await this.validCollection(CollectForPaymentDto, merchant, body);
    const ack = await this.infrastructure.commands.send(new CollectForPayment(command));
    return accepted(reply, ack);
  }

  @Post(['v1/collections/confirm', 'collections/confirm'])
  @MerchantOperation({
    id: 'confirmCollection',
    summary: 'Confirm a collection: sends the PIN prompt, or returns the card payment_url',
    description:
      'For a collection initialized with require_confirmation true. Confirming again while the prompt or checkout is open answers the same and sends no second prompt. A provider that cannot be reached answers 503: confirm again.',
    secretKey: false,
    body: true,
    invalid: 'a missing, empty or non-string internal_reference, or another field',
  })
  @ApiBody({ type: ConfirmCollectionDto })
  @ApiAnswer(
    202,
    'Accepted: mobile money data is empty (the message names the amount); card data has payment_url',
    ConfirmAcceptedDto,
  )
  @ApiNotFound("Unknown internal_reference, or another merchant's")
  @ApiConflict('Not awaiting confirmation: already final, started without confirmation, or its PRN not yet accepted')
  async confirm(
    @CurrentMerchant() merchant: Merchant,
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const reference = (body as { internal_reference?: unknown } | null)?.internal_reference;
    if (typeof reference === 'string' && reference.length > 0 && !INTERNAL_REFERENCE.test(reference))
      throw unknownTransaction();
    const { value, errors } = await validateBody(ConfirmCollectionDto, body);
    if (errors.length > 0) throw new ValidationFailed(errors);
    const command: ConfirmCollectionCommand = { merchantId: merchant.id, internalReference: value.internal_reference };
    const ack = await this.infrastructure.commands.send(new ConfirmCollection(command), {
      key: command.internalReference,
    });
    return accepted(reply, ack);
  }

  @Get(['v1/collections/:internal_reference', 'collections/:internal_reference'])
  @RequireSecretKey()
  @MerchantOperation({
    id: 'getCollection',
    summary: 'A collection by internal_reference',
    description:
      'The transaction record with its current status; a collect-for-payment also shows prn and service_payment.',
    secretKey: true,
    body: false,
  })
  @PathParam('internal_reference', INTERNAL_REFERENCE_PATTERN, 'PG7K3M9Q2X4T8V6B1N5R0D2F3H')
  @ApiAnswer(200, 'The collection', CollectionDetailsDto)
  @ApiNotFound("Unknown, or another merchant's")
  async get(@CurrentMerchant() merchant: Merchant, @Param('internal_reference') internalReference: string) {
    return this.find({ merchantId: merchant.id, internalReference });
  }

  @Get(['v1/collections', 'collections'])
  @RequireSecretKey()
  @ApiQuery({
    name: 'merchant_reference',
    required: false,
    description: 'Find the one collection with this reference (the other parameters are then not read)',
    schema: { type: 'string', pattern: MERCHANT_REFERENCE_PATTERN },
    example: 'order-1001',
  })
  @ApiQuery({ name: 'status', required: false, enum: COLLECTION_STATUSES })
  @ApiQuery({ name: 'transaction_method', required: false, enum: TRANSACTION_METHODS })
  @ApiQuery({ name: 'provider_code', required: false, schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' } })
  @CreatedRangeParameters()
  @PageParameters()
  @MerchantOperation({
    id: 'listCollections',
    summary: "The merchant's collections, newest first, or one by merchant_reference",
    description:
      'Without merchant_reference: a page of collections, newest first, filtered by status, method, provider and creation time, with next_cursor for the next page (pages do not shift as collections are added; a collection is listed once the read model has it, within moments of its initialize). With merchant_reference: that collection, as by internal_reference.',
    secretKey: true,
    body: false,
    invalid:
      'merchant_reference empty, a filter not one of its values or given twice, an unknown parameter, or a cursor this API did not give',
  })
  @ApiAnswer(200, 'A page of collections, or the collection with the merchant_reference given', {
    oneOf: [CollectionPageDto, CollectionDetailsDto],
  })
  @ApiNotFound('No collection of this merchant has the merchant_reference given')
  async list(@CurrentMerchant() merchant: Merchant, @Query() query: Record<string, unknown>) {
    const { merchant_reference: merchantReference, ...filters } = query;
    if (merchantReference !== undefined) return this.findByMerchantReference(merchant, merchantReference);
    const { value, errors } = parseListing(merchant.id, filters);
    if (errors.length > 0) throw new ValidationFailed(errors);
    const { records, next } = await this.infrastructure.commands.send(new ListCollections(value));
    return envelope(200, 'Collections', { collections: records, next_cursor: next ? collectionCursor(next) : null });
  }

  private async findByMerchantReference(merchant: Merchant, merchantReference: unknown) {
    if (typeof merchantReference !== 'string' || merchantReference.length === 0) {
      throw new ValidationFailed([
        { field: 'merchant_reference', message: 'merchant_reference must be given once and not be empty' },
      ]);
    }
    if (!MERCHANT_REFERENCE.test(merchantReference)) throw unknownTransaction();
    return this.find({ merchantId: merchant.id, merchantReference });
  }

  private async find(query: FindCollectionQuery) {
    const { commands } = this.infrastructure;
    const { record } = await commands.send(new FindCollection(query), {
      key: query.internalReference ?? query.merchantReference,
    });
    const reference = { merchantId: query.merchantId, internalReference: record.internal_reference };
    // What was refunded (disbursements owns refunds): only a COMPLETED collection has any.
    const refunded =
      record.transaction_status === 'COMPLETED'
        ? (await commands.send(new RefundedAmount(reference))).amountRefunded
        : 0;
    const found = { ...record, amount_refunded: toMajorUnits(refunded, record.transaction_currency) };
    if (record.prn === undefined) return envelope(200, 'Transaction found', found);
    // A collect-for-payment collection shows its PRN payment, which service-payments owns.
    const { servicePayment } = await commands.send(new FindServicePayment(reference));
    return envelope(200, 'Transaction found', {
      ...found,
      service_payment: servicePayment && presentServicePayment(servicePayment),
    });
  }

  /** Shape, then the contract-level catalogue rules: every bad field is named before anything is sent. */
  private async validCollection(
    dto: typeof InitializeCollectionDto | typeof CollectForPaymentDto,
    merchant: Merchant,
    body: unknown,
  ): Promise<InitializeCollectionCommand> {
    const { value, errors } = await validateBody<InitializeCollectionDto & Partial<CollectForPaymentDto>>(
      dto,
      body,
      CONDITIONALLY_REQUIRED,
    );
    const request: CollectionRequest = {
      ...value,
      charge_customer: value.charge_customer ?? false,
      require_confirmation: value.require_confirmation ?? true,
    };
    if (!errors.some((error) => PLANNED_FIELDS.includes(error.field))) {
      const planned = planCollection(request, this.config.catalogue);
      if (!planned.ok)
        errors.push(...planned.errors.filter((error) => !errors.some((known) => known.field === error.field)));
    }
    if (errors.length > 0) throw new ValidationFailed(errors);
    return { merchantId: merchant.id, request };
  }
}
