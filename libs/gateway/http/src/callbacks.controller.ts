import { Body, Controller, Get, HttpCode, Inject, NotFoundException, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBody, ApiQuery, ApiTags } from '@nestjs/swagger';
import {
  DELIVERY_STATES,
  ListCallbacks,
  ListDeliveries,
  ResendCallbacks,
  RetryAbandonedDeliveries,
  type DeliveryState,
  type ListCallbacksQuery,
  type ListDeliveriesQuery,
  type ResendCallbacksCommand,
} from '@paygate/contracts';
import type { Merchant } from '@paygate/merchants';
import { envelope, INFRASTRUCTURE, type Infrastructure } from '@paygate/platform';
import { ResendCallbacksDto, RetryDeliveriesDto } from './dto/callbacks.dto';
import { AdminGuard, ApiRequestGuard, CurrentMerchant, MerchantApi, RequireSecretKey } from './guards';
import { AdminOperation, ApiAnswer, ApiNotFound, MerchantOperation } from './openapi/responses';
import {
  CALLBACK_KEY_PATTERN,
  CallbackPageDto,
  CallbacksResentDto,
  DeliveriesDto,
  DeliveriesRetriedDto,
} from './openapi/schemas';
import { encodeCursor, PageParameters, readPageQuery } from './page-cursor';
import { validateBody, ValidationFailed, type FieldError } from './validation';

const CALLBACK_KEY = new RegExp(CALLBACK_KEY_PATTERN);
/** The admin filters' loose shape: letters, digits or _ (an operator's partial or odd id finds nothing, not 400). */
const ADMIN_ID_PATTERN = '^[A-Za-z0-9_]{1,64}$';
/** The admin's transaction filter: that shape, or a payout's callbacks by payout:<payout_reference>. */
const ADMIN_TRANSACTION_PATTERN = `^(?:[A-Za-z0-9_]{1,64}|${CALLBACK_KEY_PATTERN.slice(1, -1)})$`;
/** A page position's parts: created_at to the microsecond, as the dispatcher gives it, and the webhook id. */
const CALLBACK_PAGE = {
  filters: ['state', 'internal_reference'],
  cursorParts: [/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/, /^[A-Za-z0-9_-]{1,100}$/],
};

@ApiTags('callbacks')
@Controller()
export class CallbacksController {
  constructor(@Inject(INFRASTRUCTURE) private readonly infrastructure: Infrastructure) {}

  @Post(['v1/callbacks/resend', 'callbacks/resend'])
  @HttpCode(202)
  @MerchantApi()
  @RequireSecretKey()
  @MerchantOperation({
    id: 'resendCallbacks',
    summary: "Deliver a transaction's callbacks again",
    description:
      "Each callback of the transaction is sent again with its original webhook-id (a new attempt, signed anew), the payment and refund callbacks of a collection included; payout:<payout_reference> resends a payout's callbacks.",
    secretKey: true,
    body: true,
    invalid: 'internal_reference missing or not a string of 1 to 71 characters, or another field',
  })
  @ApiBody({ type: ResendCallbacksDto })
  @ApiAnswer(202, 'The callbacks will be delivered again', CallbacksResentDto)
  @ApiNotFound('No callbacks of this merchant for this internal_reference')
  async resend(@CurrentMerchant() merchant: Merchant, @Body() body: unknown) {
    const { value, errors } = await validateBody(ResendCallbacksDto, body);
    if (errors.length > 0) throw new ValidationFailed(errors);
    const command: ResendCallbacksCommand = { merchantId: merchant.id, internalReference: value.internal_reference };
    const { deliveries } = await this.infrastructure.commands.send(new ResendCallbacks(command));
    // Another merchant's transaction has no deliveries for this merchant: the same 404 as an unknown one.
    if (deliveries === 0) throw new NotFoundException('transaction not found');
    return envelope(202, 'Callbacks will be delivered again', {
      internal_reference: value.internal_reference,
      deliveries,
    });
  }

  @Get(['v1/callbacks', 'callbacks'])
  @MerchantApi()
  @RequireSecretKey()
  @ApiQuery({ name: 'state', required: false, enum: DELIVERY_STATES })
  @ApiQuery({
    name: 'internal_reference',
    required: false,
    schema: { type: 'string', pattern: CALLBACK_KEY_PATTERN },
    description: "A collection's internal_reference, or payout:<payout_reference>",
  })
  @PageParameters()
  @MerchantOperation({
    id: 'listCallbacks',
    summary: "The merchant's callbacks with their attempts, newest first",
    description:
      'Every callback Paygate queued for the merchant, newest first, each with every attempt at sending it (time, response status, duration, error), filtered by state and transaction, with next_cursor for the next page.',
    secretKey: true,
    body: false,
    invalid: 'a filter not one of its values or given twice, an unknown parameter, or a cursor this API did not give',
  })
  @ApiAnswer(200, 'A page of callbacks', CallbackPageDto)
  async listOwn(@CurrentMerchant() merchant: Merchant, @Query() query: Record<string, unknown>) {
    const filters: Pick<ListCallbacksQuery, 'state' | 'internalReference'> = {};
    const { limit, after, errors } = readPageQuery(query, CALLBACK_PAGE, (field, value) => {
      if (field === 'state') {
        if (!(DELIVERY_STATES as readonly string[]).includes(value))
          return `state must be one of ${DELIVERY_STATES.join(', ')}`;
        filters.state = value as DeliveryState;
      } else {
        // No collection or payout has such a reference: the answer would be empty, so say why instead.
        if (!CALLBACK_KEY.test(value)) return 'internal_reference is not one Paygate gives';
        filters.internalReference = value;
      }
      return undefined;
    });
    if (errors.length > 0) throw new ValidationFailed(errors);
    const page: ListCallbacksQuery = {
      merchantId: merchant.id,
      limit,
      ...filters,
      ...(after && { after: { createdAt: after[0], webhookId: after[1] } }),
    };
    const { deliveries, next } = await this.infrastructure.commands.send(new ListCallbacks(page));
    return envelope(200, 'Callbacks', {
      deliveries,
      next_cursor: next ? encodeCursor(next.createdAt, next.webhookId) : null,
    });
  }

  @Get('admin/v1/deliveries')
  @UseGuards(ApiRequestGuard, AdminGuard)
  @ApiQuery({ name: 'state', required: false, enum: DELIVERY_STATES })
  @ApiQuery({ name: 'merchant_id', required: false, schema: { type: 'string', pattern: ADMIN_ID_PATTERN } })
  @ApiQuery({
    name: 'internal_reference',
    required: false,
    description: "A collection's internal_reference, or payout:<payout_reference>",
    schema: { type: 'string', pattern: ADMIN_TRANSACTION_PATTERN },
  })
  @AdminOperation({
    id: 'listDeliveries',
    summary: 'Callback deliveries with their attempts, by state',
    description: 'At most 500 deliveries, filtered by state, merchant and transaction, each with its attempts.',
    body: false,
    invalid: 'a filter that is not one of its values, or given twice',
  })
  @ApiAnswer(200, 'The deliveries', DeliveriesDto)
  async list(
    @Query('state') state: unknown,
    @Query('merchant_id') merchantId: unknown,
    @Query('internal_reference') internalReference: unknown,
  ) {
    const errors: FieldError[] = [];
    if (state !== undefined && !DELIVERY_STATES.includes(state as DeliveryState))
      errors.push({ field: 'state', message: `state must be one of ${DELIVERY_STATES.join(', ')}` });
    for (const [field, value, pattern, shape] of [
      ['merchant_id', merchantId, ADMIN_ID_PATTERN, '1 to 64 letters, digits or _'],
      [
        'internal_reference',
        internalReference,
        ADMIN_TRANSACTION_PATTERN,
        '1 to 64 letters, digits or _, or payout:<payout_reference>',
      ],
    ] as const) {
      if (value !== undefined && (typeof value !== 'string' || !new RegExp(pattern).test(value)))
        errors.push({ field, message: `${field} must be given once, as ${shape}` });
    }
    if (errors.length > 0) throw new ValidationFailed(errors);
    const query: ListDeliveriesQuery = {
      state: state as DeliveryState | undefined,
      merchantId: merchantId as string | undefined,
      internalReference: internalReference as string | undefined,
      limit: 500,
    };
    const { deliveries } = await this.infrastructure.commands.send(new ListDeliveries(query));
    return envelope(200, 'Deliveries', { deliveries });
  }

  @Post('admin/v1/deliveries/retry')
  @HttpCode(202)
  @UseGuards(ApiRequestGuard, AdminGuard)
  @ApiBody({ type: RetryDeliveriesDto })
  @AdminOperation({
    id: 'retryDeliveries',
    summary: 'Retry abandoned deliveries',
    description:
      'Every abandoned delivery, or those of the given webhook ids, is scheduled again from the start of the retry schedule.',
    body: true,
    invalid: 'webhook_ids not an array of at most 1000 strings, or another field',
  })
  @ApiAnswer(202, 'How many deliveries will be tried again', DeliveriesRetriedDto)
  async retry(@Body() body: unknown) {
    const { value, errors } = await validateBody(RetryDeliveriesDto, body);
    if (errors.length > 0) throw new ValidationFailed(errors);
    const { deliveries } = await this.infrastructure.commands.send(
      new RetryAbandonedDeliveries({ webhookIds: value.webhook_ids }),
    );
    return envelope(202, 'Abandoned deliveries will be retried', { deliveries });
  }
}
