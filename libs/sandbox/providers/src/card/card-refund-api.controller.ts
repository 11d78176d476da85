import { Body, Controller, Get, Headers, Post, Query, Res, UseFilters } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { RateLimitedAs } from '@paygate/platform';
import { cardApiError, ProviderApiErrorFilter } from '../provider-api-error';
import { isAmount, isHttpUrl } from '../validation';
import { authorize } from './card-api.controller';
import type { NewCardRefund } from './card-refund-store';
import { cardRefundBody, CardRefunds } from './card-refunds';

function parseNewRefund(body: unknown): NewCardRefund {
  const invalid = (param: string, message: string) => cardApiError(400, 'parameter_invalid', message, param);
  if (typeof body !== 'object' || body === null)
    throw cardApiError(400, 'invalid_request', 'the request body must be a JSON object');
  const { reference, payment_reference, amount, currency, description, notify_url } = body as Record<string, unknown>;
  for (const [param, value] of [
    ['reference', reference],
    ['payment_reference', payment_reference],
  ] as const) {
    if (typeof value !== 'string' || value.length === 0 || value.length > 100)
      throw invalid(param, `${param} must be a string of 1 to 100 characters`);
  }
  if (!isAmount(amount)) throw invalid('amount', 'amount must be a positive decimal string');
  if (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency))
    throw invalid('currency', 'currency must be an ISO 4217 code');
  if (description !== undefined && (typeof description !== 'string' || description.length > 255))
    throw invalid('description', 'description must be a string of at most 255 characters');
  if (!isHttpUrl(notify_url)) throw invalid('notify_url', 'notify_url must be an http(s) URL');
  return {
    reference: reference as string,
    paymentReference: payment_reference as string,
    amount,
    currency,
    description: description || undefined,
    notifyUrl: notify_url,
  };
}

/** The card provider's refunds API: one refund per reference, of the charge made under a payment reference. */
@Controller('sandbox/card/v1/refunds')
@RateLimitedAs('provider')
@UseFilters(ProviderApiErrorFilter)
export class CardRefundApiController {
  constructor(private readonly refunds: CardRefunds) {}

  /** 201 with a new refund; 200 with the refund a repeated reference already names. */
  @Post()
  async create(
    @Headers('authorization') authorization: string | undefined,
    @Body() body: unknown,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    authorize(authorization);
    const { created, refund } = await this.refunds.refund(parseNewRefund(body));
    await reply.status(created ? 201 : 200).send(cardRefundBody(refund));
  }

  /** The refunds listed under a reference: none or one. */
  @Get()
  async list(@Headers('authorization') authorization: string | undefined, @Query('reference') reference: unknown) {
    authorize(authorization);
    if (typeof reference !== 'string' || reference === '')
      throw cardApiError(400, 'parameter_missing', 'one reference is required', 'reference');
    const refund = await this.refunds.find(reference);
    return { data: refund ? [cardRefundBody(refund)] : [] };
  }
}
