import { Body, Controller, Get, Inject, NotFoundException, Param, Post, Query, Res } from '@nestjs/common';
import { ApiBody, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import {
  CurrentCollection,
  FindRefund,
  INTERNAL_REFERENCE_PATTERN,
  ListRefunds,
  MONEY_OUT_REFERENCE_PATTERN,
  refundedCollectionOf,
  RequestRefund,
} from '@paygate/contracts';
import type { Merchant } from '@paygate/merchants';
import { isSupportedCurrency, toMinorUnits } from '@paygate/money';
import { envelope, INFRASTRUCTURE, type Infrastructure } from '@paygate/platform';
import { RefundRequestDto } from './dto/refund.dto';
import { CurrentMerchant, MerchantApi, RequireSecretKey } from './guards';
import { ApiAnswer, ApiConflict, ApiNotFound, MerchantOperation, PathParam } from './openapi/responses';
import { RefundDto, RefundPageDto } from './openapi/schemas';
import { encodeCursor, PageParameters, readPageQuery, STORED_INSTANT } from './page-cursor';
import { validateBody, ValidationFailed, type FieldError } from './validation';

const INTERNAL_REFERENCE = new RegExp(INTERNAL_REFERENCE_PATTERN);
const REFUND_REFERENCE = new RegExp(MONEY_OUT_REFERENCE_PATTERN);
/** A page position's parts: the refund's creation instant and its reference. */
const REFUND_PAGE = { filters: ['internal_reference'], cursorParts: [STORED_INSTANT, REFUND_REFERENCE] };

const unknownTransaction = () => new NotFoundException('transaction not found');

/** Major units of the collection's currency to minor units, or the field's error. */
function minorUnits(amount: number, currency: string, field: string): { minor?: number; error?: FieldError } {
  const converted = isSupportedCurrency(currency) ? toMinorUnits(amount, currency) : undefined;
  if (!converted?.ok)
    return { error: { field, message: converted?.reason ?? `${field} is not an amount of ${currency}` } };
  return { minor: converted.minor };
}

@ApiTags('refunds')
@Controller()
@MerchantApi()
export class RefundsController {
  constructor(@Inject(INFRASTRUCTURE) private readonly infrastructure: Infrastructure) {}

  @Post(['v1/refunds', 'refunds'])
  @RequireSecretKey()
  @MerchantOperation({
    id: 'createRefund',
    summary: 'Refund (part of) a COMPLETED collection to its payer',
    description:
      "The amount is held on the wallet at once (a wallet never goes below zero), then sent to the collection's provider with a reference derived from refund_reference, so a retry is the same refund there too. Answers PENDING; refund.completed or refund.failed follows at the collection callback URL. A provider that does not answer keeps it PENDING (pending_reason provider_unconfirmed) until it does: only the provider's word makes it FAILED.",
    secretKey: true,
    body: true,
    invalid:
      'a field missing or malformed; a collection that is not COMPLETED (naming internal_reference); an amount over what is left to refund, or over what the wallet has available (naming amount)',
  })
  @ApiBody({ type: RefundRequestDto })
  @ApiAnswer(202, 'Accepted (or the same refund again, for the same refund_reference and body)', RefundDto)
  @ApiNotFound("Unknown internal_reference, or another merchant's")
  @ApiConflict('The refund_reference was used for another refund')
  async create(
    @CurrentMerchant() merchant: Merchant,
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const { value, errors } = await validateBody(RefundRequestDto, body);
    if (errors.length > 0) throw new ValidationFailed(errors);
    if (!INTERNAL_REFERENCE.test(value.internal_reference)) throw unknownTransaction();
    // The collection's stream, not the read model: a view that trails would refuse a COMPLETED one as PENDING.
    const { record, merchantId } = await this.infrastructure.commands.send(
      new CurrentCollection({ internalReference: value.internal_reference }),
      { key: value.internal_reference },
    );
    if (merchantId !== merchant.id) throw unknownTransaction();
    const collection = refundedCollectionOf(record);
    let amount: number | undefined;
    if (value.amount !== undefined) {
      const converted = minorUnits(value.amount, collection.currency, 'amount');
      if (converted.error) throw new ValidationFailed([converted.error]);
      amount = converted.minor;
    }
    const { refund } = await this.infrastructure.commands.send(
      new RequestRefund({
        merchantId: merchant.id,
        refundReference: value.refund_reference,
        collection,
        amount,
        reason: value.reason,
      }),
      { key: value.internal_reference },
    );
    void reply.status(202);
    return envelope(202, 'Refund accepted', refund);
  }

  @Get(['v1/refunds/:refund_reference', 'refunds/:refund_reference'])
  @RequireSecretKey()
  @MerchantOperation({
    id: 'getRefund',
    summary: 'A refund by refund_reference',
    description: 'The refund with its current status.',
    secretKey: true,
    body: false,
  })
  @PathParam('refund_reference', MONEY_OUT_REFERENCE_PATTERN, 'refund-1001')
  @ApiAnswer(200, 'The refund', RefundDto)
  @ApiNotFound('No refund of this merchant has this reference')
  async get(@CurrentMerchant() merchant: Merchant, @Param('refund_reference') refundReference: string) {
    if (!REFUND_REFERENCE.test(refundReference)) throw new NotFoundException('refund not found');
    const { refund } = await this.infrastructure.commands.send(
      new FindRefund({ merchantId: merchant.id, refundReference }),
    );
    if (!refund) throw new NotFoundException('refund not found');
    return envelope(200, 'Refund found', refund);
  }

  @Get(['v1/refunds', 'refunds'])
  @RequireSecretKey()
  @ApiQuery({
    name: 'internal_reference',
    required: false,
    description: "Only this collection's refunds",
    schema: { type: 'string', pattern: INTERNAL_REFERENCE_PATTERN },
  })
  @PageParameters()
  @MerchantOperation({
    id: 'listRefunds',
    summary: "The merchant's refunds, newest first",
    description:
      'A page of refunds, newest first, optionally of one collection, with next_cursor for the next page. A refund is listed once the read model has it, within moments of its request.',
    secretKey: true,
    body: false,
    invalid:
      'an internal_reference that is not one, a parameter given twice or unknown, or a cursor this API did not give',
  })
  @ApiAnswer(200, 'A page of refunds', RefundPageDto)
  async list(@CurrentMerchant() merchant: Merchant, @Query() query: Record<string, unknown>) {
    let internalReference: string | undefined;
    const { limit, after, errors } = readPageQuery(query, REFUND_PAGE, (_field, value) => {
      if (!INTERNAL_REFERENCE.test(value)) return 'internal_reference must be a collection reference (PG…)';
      internalReference = value;
      return undefined;
    });
    if (errors.length > 0) throw new ValidationFailed(errors);
    const { refunds, next } = await this.infrastructure.commands.send(
      new ListRefunds({
        merchantId: merchant.id,
        internalReference,
        limit,
        ...(after && { after: { createdAt: after[0], refundReference: after[1] } }),
      }),
    );
    return envelope(200, 'Refunds', {
      refunds,
      next_cursor: next ? encodeCursor(next.createdAt, next.refundReference) : null,
    });
  }
}
