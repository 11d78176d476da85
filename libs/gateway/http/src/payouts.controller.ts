import { Body, Controller, Get, Inject, NotFoundException, Param, Post, Query, Res } from '@nestjs/common';
import { ApiBody, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import {
  CheckRecipient,
  FindPayout,
  ListPayouts,
  MONEY_OUT_REFERENCE_PATTERN,
  PAYOUT_STATUSES,
  payoutSettingsIn,
  RequestPayout,
  type ListPayoutsQuery,
  type PayoutStatus,
} from '@paygate/contracts';
import type { Merchant } from '@paygate/merchants';
import { isSupportedCurrency, toMinorUnits } from '@paygate/money';
import { envelope, INFRASTRUCTURE, type Infrastructure } from '@paygate/platform';
import { instant } from './collection-listing';
import { MSISDN_PATTERN, PayoutRequestDto, PROVIDER_CODE_PATTERN } from './dto/payout.dto';
import { CurrentMerchant, MerchantApi, RequireSecretKey } from './guards';
import { PayoutDto, PayoutPageDto, RecipientDto } from './openapi/payout-schemas';
import { ApiAnswer, ApiConflict, ApiNotFound, MerchantOperation, PathParam } from './openapi/responses';
import { encodeCursor, CreatedRangeParameters, PageParameters, readPageQuery, STORED_INSTANT } from './page-cursor';
import { validateBody, ValidationFailed, type FieldError } from './validation';

const PAYOUT_REFERENCE = new RegExp(MONEY_OUT_REFERENCE_PATTERN);
const PROVIDER_CODE = new RegExp(PROVIDER_CODE_PATTERN);
const MSISDN = new RegExp(MSISDN_PATTERN);
/** GET /v1/payouts' filters and its position's parts: the payout's creation instant and its reference. */
const PAYOUT_PAGE = {
  filters: ['status', 'provider_code', 'created_from', 'created_to'],
  cursorParts: [STORED_INSTANT, PAYOUT_REFERENCE],
};

@ApiTags('payouts')
@Controller()
@MerchantApi()
export class PayoutsController {
  constructor(@Inject(INFRASTRUCTURE) private readonly infrastructure: Infrastructure) {}

  @Get(['v1/payouts/recipient', 'payouts/recipient'])
  @RequireSecretKey()
  @ApiQuery({ name: 'provider_code', required: true, schema: { type: 'string', pattern: PROVIDER_CODE_PATTERN } })
  @ApiQuery({ name: 'msisdn', required: true, schema: { type: 'string', pattern: MSISDN_PATTERN } })
  @MerchantOperation({
    id: 'checkPayoutRecipient',
    summary: 'The name check: whether a mobile money number can receive a payout, and whose it is',
    description:
      'Asks the provider for the account holder. POST /v1/payouts makes the same check before any money moves; show the name to whoever sends the payout before they send it.',
    secretKey: true,
    body: false,
    invalid:
      'provider_code or msisdn missing or malformed, a provider that takes no payouts (naming provider_code), or a number not of that provider (naming msisdn)',
  })
  @ApiAnswer(200, 'The account holder', RecipientDto)
  async recipient(@Query() query: Record<string, unknown>) {
    const errors: FieldError[] = [];
    for (const field of Object.keys(query))
      if (field !== 'provider_code' && field !== 'msisdn')
        errors.push({ field, message: 'unknown query parameter; this takes provider_code and msisdn' });
    const { provider_code: providerCode, msisdn } = query;
    if (typeof providerCode !== 'string' || !PROVIDER_CODE.test(providerCode))
      errors.push({
        field: 'provider_code',
        message: 'provider_code must be given once: 1 to 64 letters, digits, _ or -',
      });
    if (typeof msisdn !== 'string' || !MSISDN.test(msisdn))
      errors.push({ field: 'msisdn', message: 'msisdn must be given once: 6 to 15 digits with the calling code' });
    if (errors.length > 0) throw new ValidationFailed(errors);
    const { recipient } = await this.infrastructure.commands.send(
      new CheckRecipient({ providerCode: providerCode as string, msisdn: msisdn as string }),
    );
    return envelope(200, 'Recipient', {
      provider_code: recipient.providerCode,
      msisdn: recipient.msisdn,
      can_receive: recipient.canReceive,
      name: recipient.name,
    });
  }

  @Post(['v1/payouts', 'payouts'])
  @RequireSecretKey()
  @MerchantOperation({
    id: 'createPayout',
    summary: 'Pay wallet money out to a mobile money number',
    description:
      "The number's account is checked at the provider first (the name check); then the amount and the payout fee are held on the wallet at once (a wallet never goes below zero), and the payout is sent with a reference derived from payout_reference, so a retry is the same payout there too. Answers PENDING, or PENDING_APPROVAL above your approval threshold (an owner approves it in the dashboard). A provider that does not answer keeps it PENDING (pending_reason provider_unconfirmed) until it does: only the provider's word makes it FAILED.",
    secretKey: true,
    body: true,
    invalid:
      "a field missing or malformed; a provider that takes no payouts (naming provider_code) or another currency than its own (naming currency); an amount outside the provider's payout limits, over today's payout cap, or over what the wallet has available with the fee (naming amount); a number that is not the provider's or cannot receive (naming msisdn); a recipient_name that is not the account holder's (naming recipient_name)",
  })
  @ApiBody({ type: PayoutRequestDto })
  @ApiAnswer(202, 'Accepted (or the same payout again, for the same payout_reference and body)', PayoutDto)
  @ApiConflict('The payout_reference was used for another payout')
  async create(
    @CurrentMerchant() merchant: Merchant,
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const { value, errors } = await validateBody(PayoutRequestDto, body);
    if (errors.length > 0) throw new ValidationFailed(errors);
    const converted = isSupportedCurrency(value.currency) ? toMinorUnits(value.amount, value.currency) : undefined;
    if (!converted?.ok)
      throw new ValidationFailed([
        { field: 'amount', message: converted?.reason ?? `amount is not an amount of ${value.currency}` },
      ]);
    const { payout } = await this.infrastructure.commands.send(
      new RequestPayout({
        merchantId: merchant.id,
        payoutReference: value.payout_reference,
        currency: value.currency,
        amount: converted.minor,
        providerCode: value.provider_code,
        msisdn: value.msisdn,
        recipientName: value.recipient_name,
        settings: payoutSettingsIn(merchant, value.currency),
      }),
      { key: `${merchant.id}:${value.payout_reference}` },
    );
    void reply.status(202);
    return envelope(202, 'Payout accepted', payout);
  }

  @Get(['v1/payouts/:payout_reference', 'payouts/:payout_reference'])
  @RequireSecretKey()
  @MerchantOperation({
    id: 'getPayout',
    summary: 'A payout by payout_reference',
    description: 'The payout with its current status.',
    secretKey: true,
    body: false,
  })
  @PathParam('payout_reference', MONEY_OUT_REFERENCE_PATTERN, 'payout-1001')
  @ApiAnswer(200, 'The payout', PayoutDto)
  @ApiNotFound('No payout of this merchant has this reference')
  async get(@CurrentMerchant() merchant: Merchant, @Param('payout_reference') payoutReference: string) {
    if (!PAYOUT_REFERENCE.test(payoutReference)) throw new NotFoundException('payout not found');
    const { payout } = await this.infrastructure.commands.send(
      new FindPayout({ merchantId: merchant.id, payoutReference }),
    );
    if (!payout) throw new NotFoundException('payout not found');
    return envelope(200, 'Payout found', payout);
  }

  @Get(['v1/payouts', 'payouts'])
  @RequireSecretKey()
  @ApiQuery({ name: 'status', required: false, enum: PAYOUT_STATUSES })
  @ApiQuery({ name: 'provider_code', required: false, schema: { type: 'string', pattern: PROVIDER_CODE_PATTERN } })
  @CreatedRangeParameters()
  @PageParameters()
  @MerchantOperation({
    id: 'listPayouts',
    summary: "The merchant's payouts, newest first",
    description:
      'A page of payouts, newest first, filtered by status, provider and creation time, with next_cursor for the next page. A payout is listed once the read model has it, within moments of its request.',
    secretKey: true,
    body: false,
    invalid: 'a filter not one of its values or given twice, an unknown parameter, or a cursor this API did not give',
  })
  @ApiAnswer(200, 'A page of payouts', PayoutPageDto)
  async list(@CurrentMerchant() merchant: Merchant, @Query() query: Record<string, unknown>) {
    const listing: ListPayoutsQuery = { merchantId: merchant.id, limit: 0 };
    const { limit, after, errors } = readPageQuery(query, PAYOUT_PAGE, (field, raw) => {
      switch (field) {
        case 'status':
          if (!(PAYOUT_STATUSES as readonly string[]).includes(raw))
            return `status must be one of ${PAYOUT_STATUSES.join(', ')}`;
          listing.status = raw as PayoutStatus;
          return undefined;
        case 'provider_code':
          if (!PROVIDER_CODE.test(raw)) return 'provider_code must be 1 to 64 letters, digits, _ or -';
          listing.providerCode = raw;
          return undefined;
        default: {
          const at = instant(raw);
          if (at === undefined) return `${field} must be a date (2026-11-26) or an RFC 3339 date-time`;
          if (field === 'created_from') listing.from = at;
          else listing.to = at;
          return undefined;
        }
      }
    });
    if (errors.length > 0) throw new ValidationFailed(errors);
    const { payouts, next } = await this.infrastructure.commands.send(
      new ListPayouts({
        ...listing,
        limit,
        ...(after && { after: { createdAt: after[0], payoutReference: after[1] } }),
      }),
    );
    return envelope(200, 'Payouts', {
      payouts,
      next_cursor: next ? encodeCursor(next.createdAt, next.payoutReference) : null,
    });
  }
}
