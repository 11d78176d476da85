import { Body, Controller, Get, Inject, NotFoundException, Param, Post, Query, Res } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOperation, ApiQuery, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import {
  COLLECTIONS_SERVICE,
  PAYMENTS_SERVICE,
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
import { CollectForPaymentDto, ConfirmCollectionDto, InitializeCollectionDto } from './dto/initialize-collection.dto';
import type { GatewayConfig } from './gateway-config';
import { CurrentMerchant, MerchantApi, RequireSecretKey } from './guards';
import { GATEWAY_CONFIG } from './tokens';
import { validateBody, ValidationFailed } from './validation';

/** Fields the catalogue rules read: they are checked only once their shape is valid. */
const PLANNED_FIELDS = ['provider_code', 'transaction_method', 'currency', 'amount', 'msisdn', 'redirect_url', 'charge_customer'];

/**
 * References that cannot exist (wrong characters, too long) are answered like unknown ones
 * without asking the service. Text no store can hold never gets here (the platform's input guard).
 */
const INTERNAL_REFERENCE = /^[A-Za-z0-9]{1,64}$/;
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

/** Initialize and confirm start work that finishes later: 202 Accepted. */
function accepted(reply: FastifyReply, ack: Acknowledgement) {
  void reply.status(202);
  return envelope(202, ack.message, ack.data);
}

const CONDITIONALLY_REQUIRED = { msisdn: 'msisdn is required for MOBILE_MONEY', redirect_url: 'redirect_url is required for CARD' };

const ACK_EXAMPLE = {
  code: 202,
  status: 'accepted',
  message: 'Transaction initiated. Pending customer confirmation',
  data: {
    id: 1,
    merchant_reference: 'order-1001',
    internal_reference: 'PG7K3M9Q2X4T8V6B1N5R0D2F3H',
    transaction_type: 'COLLECTION',
    request_currency: 'UGX',
    request_amount: 81000,
    transaction_currency: 'UGX',
    transaction_amount: 81000,
    transaction_fee: 1215,
    charge_customer: false,
    total_credit: 79785,
    provider_code: 'mtn_momo_ug',
    transaction_status: 'PENDING',
    status_message: 'Transaction initiated. Pending customer confirmation',
  },
};

@ApiTags('collections')
@ApiSecurity('public-key')
@ApiResponse({
  status: 503,
  description:
    'The collections service, or the store or broker it needs, did not answer within COMMAND_TIMEOUT_MS; retry after Retry-After seconds (the same merchant_reference is safe)',
  headers: { 'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } } },
})
@ApiHeader({ name: 'x-api-version', required: false, description: 'Only 1; required meaning for unprefixed paths' })
@Controller()
@MerchantApi()
export class CollectionsController {
  constructor(
    @Inject(INFRASTRUCTURE) private readonly infrastructure: Infrastructure,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Post(['v1/collections/initialize', 'collections/initialize'])
  @ApiOperation({ summary: 'Start a collection by mobile money or card' })
  @ApiBody({ type: InitializeCollectionDto })
  @ApiResponse({ status: 202, description: 'Accepted; the same body again replays this acknowledgement', schema: { example: ACK_EXAMPLE } })
  @ApiResponse({ status: 400, description: 'Invalid request; data.errors names each bad field' })
  @ApiResponse({ status: 409, description: 'merchant_reference already used for a different request' })
  async initialize(@CurrentMerchant() merchant: Merchant, @Body() body: unknown, @Res({ passthrough: true }) reply: FastifyReply) {
    const command = await this.validCollection(InitializeCollectionDto, merchant, body);
    const ack = await this.infrastructure.commands.send(COLLECTIONS_SERVICE, 'collections.initialize', command);
    return accepted(reply, ack);
  }

  @Post(['v1/collections/collect-for-payment', 'collections/collect-for-payment'])
  @ApiOperation({ summary: 'Collect from a customer, then pay a PRN from the collected funds' })
  @ApiBody({ type: CollectForPaymentDto })
  @ApiResponse({
    status: 202,
    description: 'Accepted; the PRN is validated before the customer is asked to pay (payment.failed and transaction.cancelled when it is not eligible)',
    schema: {
      example: {
        code: 202,
        status: 'accepted',
        message: 'Transaction accepted. The PRN is validated before the customer is asked to pay',
        data: { internal_reference: 'PG7K3M9Q2X4T8V6B1N5R0D2F3H', merchant_reference: 'order-1001' },
      },
    },
  })
  @ApiResponse({ status: 400, description: 'Invalid request; data.errors names each bad field' })
  @ApiResponse({ status: 409, description: 'merchant_reference already used for a different request' })
  async collectForPayment(@CurrentMerchant() merchant: Merchant, @Body() body: unknown, @Res({ passthrough: true }) reply: FastifyReply) {
    const command = await this.validCollection(CollectForPaymentDto, merchant, body);
    const ack = await this.infrastructure.commands.send(COLLECTIONS_SERVICE, 'collections.collectForPayment', command);
    return accepted(reply, ack);
  }

  @Post(['v1/collections/confirm', 'collections/confirm'])
  @ApiOperation({ summary: 'Confirm a collection: sends the PIN prompt, or returns the card payment_url' })
  @ApiBody({ type: ConfirmCollectionDto })
  @ApiResponse({
    status: 202,
    schema: {
      example: { code: 202, status: 'accepted', message: 'You will receive a prompt to pay UGX 81,000 on your mobile. Enter PIN to approve payment', data: {} },
    },
  })
  @ApiResponse({ status: 404, description: 'Unknown internal_reference' })
  @ApiResponse({ status: 409, description: 'Not awaiting confirmation' })
  async confirm(@CurrentMerchant() merchant: Merchant, @Body() body: unknown, @Res({ passthrough: true }) reply: FastifyReply) {
    const reference = (body as { internal_reference?: unknown } | null)?.internal_reference;
    if (typeof reference === 'string' && reference.length > 0 && !INTERNAL_REFERENCE.test(reference)) throw unknownTransaction();
    const { value, errors } = await validateBody(ConfirmCollectionDto, body);
    if (errors.length > 0) throw new ValidationFailed(errors);
    const command: ConfirmCollectionCommand = { merchantId: merchant.id, internalReference: value.internal_reference };
    const ack = await this.infrastructure.commands.send(COLLECTIONS_SERVICE, 'collections.confirm', command, { key: command.internalReference });
    return accepted(reply, ack);
  }

  @Get(['v1/collections/:internal_reference', 'collections/:internal_reference'])
  @RequireSecretKey()
  @ApiSecurity('secret-key')
  @ApiOperation({ summary: 'A collection by internal_reference' })
  @ApiResponse({ status: 404, description: "Unknown, or another merchant's" })
  async get(@CurrentMerchant() merchant: Merchant, @Param('internal_reference') internalReference: string) {
    if (!INTERNAL_REFERENCE.test(internalReference)) throw unknownTransaction();
    return this.find({ merchantId: merchant.id, internalReference });
  }

  @Get(['v1/collections', 'collections'])
  @RequireSecretKey()
  @ApiSecurity('secret-key')
  @ApiQuery({ name: 'merchant_reference', required: true })
  @ApiOperation({ summary: 'A collection by merchant_reference' })
  async findByMerchantReference(@CurrentMerchant() merchant: Merchant, @Query('merchant_reference') merchantReference: unknown) {
    if (typeof merchantReference !== 'string' || merchantReference.length === 0) {
      throw new ValidationFailed([{ field: 'merchant_reference', message: 'the merchant_reference query parameter is required' }]);
    }
    if (!MERCHANT_REFERENCE.test(merchantReference)) throw unknownTransaction();
    return this.find({ merchantId: merchant.id, merchantReference });
  }

  private async find(query: FindCollectionQuery) {
    const { record } = await this.infrastructure.commands.send(COLLECTIONS_SERVICE, 'collections.find', query, {
      key: query.internalReference ?? query.merchantReference,
    });
    if (record.prn === undefined) return envelope(200, 'Transaction found', record);
    // A collect-for-payment collection shows its PRN payment, which service-payments owns.
    const { servicePayment } = await this.infrastructure.commands.send(PAYMENTS_SERVICE, 'payments.findServicePayment', {
      merchantId: query.merchantId,
      internalReference: record.internal_reference,
    });
    return envelope(200, 'Transaction found', { ...record, service_payment: servicePayment && presentServicePayment(servicePayment) });
  }

  /** Shape, then the contract-level catalogue rules: every bad field is named before anything is sent. */
  private async validCollection(
    dto: typeof InitializeCollectionDto | typeof CollectForPaymentDto,
    merchant: Merchant,
    body: unknown,
  ): Promise<InitializeCollectionCommand> {
    const { value, errors } = await validateBody<InitializeCollectionDto & Partial<CollectForPaymentDto>>(dto, body, CONDITIONALLY_REQUIRED);
    const request: CollectionRequest = { ...value, charge_customer: value.charge_customer ?? false, require_confirmation: value.require_confirmation ?? true };
    if (!errors.some((error) => PLANNED_FIELDS.includes(error.field))) {
      const planned = planCollection(request, this.config.catalogue);
      if (!planned.ok) errors.push(...planned.errors.filter((error) => !errors.some((known) => known.field === error.field)));
    }
    if (errors.length > 0) throw new ValidationFailed(errors);
    return { merchantId: merchant.id, request };
  }
}
