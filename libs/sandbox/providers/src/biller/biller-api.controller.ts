import { Body, Controller, Get, Headers, Inject, Param, Post, Res, UseFilters } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { billerApiError, ProviderApiErrorFilter } from '../provider-api-error';
import { SANDBOX_CONFIG, type SandboxConfig } from '../sandbox-config';
import { BillerSandbox, paymentBody, prnBody } from './biller-sandbox';
import { RateLimitedAs, sameSecret } from '@paygate/platform';

type RequestHeaders = Record<string, string | string[] | undefined>;

function header(headers: RequestHeaders, name: string): string | undefined {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value) || undefined;
}

/**
 * The biller's API, as a revenue authority's PRN gateway offers it to a payment aggregator.
 * Every route needs `X-Api-Key`. Amounts are JSON numbers in major units; errors are
 * `{error: {code, message, field?}}`.
 *
 * - `GET  /sandbox/biller/v1/prns/{prn}`: the PRN (404 PRN_NOT_FOUND).
 * - `POST /sandbox/biller/v1/prns/{prn}/payments` with `Idempotency-Key` and
 *   `{amount, currency, reference}`: 201 with the COMPLETED payment (202 while it is still
 *   PENDING). The same key with the same request answers the same payment again, never a
 *   second one (`Idempotent-Replayed: true`); with another request, 422 IDEMPOTENCY_KEY_REUSED.
 *   A new key is refused for a PAID PRN (409 PRN_ALREADY_PAID), a SUBMITTED one (409
 *   PRN_PAYMENT_IN_PROGRESS), an EXPIRED one (422 PRN_EXPIRED), and for an amount or currency
 *   other than the PRN's (422 AMOUNT_MISMATCH, CURRENCY_MISMATCH).
 * - `GET  /sandbox/biller/v1/payments/{idempotency_key}`: the payment made with that key (404
 *   PAYMENT_NOT_FOUND when none was made).
 */
@Controller('sandbox/biller/v1')
@RateLimitedAs('provider')
@UseFilters(ProviderApiErrorFilter)
export class BillerApiController {
  constructor(
    private readonly biller: BillerSandbox,
    @Inject(SANDBOX_CONFIG) private readonly config: SandboxConfig,
  ) {}

  @Get('prns/:prn')
  async prn(@Headers() headers: RequestHeaders, @Param('prn') prn: string) {
    this.authorize(headers);
    const found = await this.biller.lookUpPrn(prn);
    if (!found) throw billerApiError(404, 'PRN_NOT_FOUND', 'no such PRN');
    return prnBody(found);
  }

  @Post('prns/:prn/payments')
  async pay(
    @Headers() headers: RequestHeaders,
    @Param('prn') prn: string,
    @Body() body: unknown,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    this.authorize(headers);
    const { payment, replayed } = await this.biller.pay(prn, header(headers, 'idempotency-key'), body);
    if (replayed) void reply.header('idempotent-replayed', 'true');
    void reply.status(payment.status === 'COMPLETED' ? 201 : 202).send(paymentBody(payment));
  }

  @Get('payments/:idempotencyKey')
  async payment(@Headers() headers: RequestHeaders, @Param('idempotencyKey') idempotencyKey: string) {
    this.authorize(headers);
    const payment = await this.biller.findPayment(idempotencyKey);
    if (!payment) throw billerApiError(404, 'PAYMENT_NOT_FOUND', 'no payment was made with this Idempotency-Key');
    return paymentBody(payment);
  }

  private authorize(headers: RequestHeaders): void {
    const key = header(headers, 'x-api-key');
    if (!key || !sameSecret(key, this.config.billerApiKey.reveal()))
      throw billerApiError(401, 'UNAUTHORIZED', 'a valid X-Api-Key is required');
  }
}
