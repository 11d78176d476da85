import { Body, Controller, Get, Headers, HttpCode, Inject, Param, Post, Res, UseFilters } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { DRAIN, RateLimitedAs, type Drain } from '@paygate/platform';
import { Background } from '../background';
import { momoError, ProviderApiErrorFilter } from '../provider-api-error';
import { SANDBOX_CONFIG, type SandboxConfig } from '../sandbox-config';
import { leaveUnanswered } from '../unanswered';
import { DisbursementSimulator, refundBody, transferBody } from './disbursement-simulator';
import { MomoSimulator } from './momo-simulator';
import { authorize, creationHeaders, issueToken, parseMoneyFields, parseParty, type RequestHeaders } from './momo-http';

const UUID = /^[0-9a-f-]{36}$/i;
const notFound = () => momoError(404, 'RESOURCE_NOT_FOUND', 'Requested resource was not found.');
const duplicate = () =>
  momoError(409, 'RESOURCE_ALREADY_EXIST', 'Duplicated reference id. Creation of resource failed.');

function msisdnOf(value: string): string {
  if (!/^\d{8,15}$/.test(value)) throw momoError(400, 'INVALID_ACCOUNT_HOLDER', 'an MSISDN must be 8 to 15 digits');
  return value;
}

/**
 * MTN MoMo's Disbursement API: token, account holder check, transfer (payout) and refund with their status. Test
 * numbers decide the outcomes (DisbursementSimulator); the requests that get no answer are recorded first.
 */
@Controller('sandbox/momo/disbursement')
@RateLimitedAs('provider')
@UseFilters(ProviderApiErrorFilter)
export class DisbursementController {
  /** Aborted when the server starts draining: held requests are dropped then, so they never hold up a shutdown. */
  private readonly draining = new AbortController();

  constructor(
    private readonly momo: MomoSimulator,
    private readonly disbursement: DisbursementSimulator,
    private readonly background: Background,
    @Inject(SANDBOX_CONFIG) private readonly config: SandboxConfig,
    @Inject(DRAIN) drain: Drain,
  ) {
    drain.onBegin(() => this.draining.abort());
  }

  // Nest strips one trailing slash, and MoMo's token path ends with one.
  @Post('token//')
  @HttpCode(200)
  token(@Headers() headers: RequestHeaders) {
    return issueToken(this.momo, headers, 'disbursement');
  }

  @Get('v1_0/accountholder/msisdn/:msisdn/active')
  async active(@Headers() headers: RequestHeaders, @Param('msisdn') msisdn: string) {
    await authorize(this.momo, headers, 'disbursement');
    return { result: this.disbursement.accountHolder(msisdnOf(msisdn)).active };
  }

  @Get('v1_0/accountholder/msisdn/:msisdn/basicuserinfo')
  async basicUserInfo(@Headers() headers: RequestHeaders, @Param('msisdn') msisdn: string) {
    await authorize(this.momo, headers, 'disbursement');
    const { givenName, familyName } = this.disbursement.accountHolder(msisdnOf(msisdn));
    return { name: `${givenName} ${familyName}`, given_name: givenName, family_name: familyName, locale: 'en' };
  }

  @Post('v1_0/transfer')
  async transfer(@Headers() headers: RequestHeaders, @Body() body: unknown, @Res() reply: FastifyReply): Promise<void> {
    await authorize(this.momo, headers, 'disbursement');
    const created = creationHeaders(headers);
    const { fields, ...money } = parseMoneyFields(body);
    const { created: isNew, answered } = await this.disbursement.transfer({
      ...created,
      ...money,
      payee: parseParty(fields.payee, 'payee'),
    });
    await this.answer(reply, isNew, answered);
  }

  @Get('v1_0/transfer/:referenceId')
  async transferStatus(@Headers() headers: RequestHeaders, @Param('referenceId') referenceId: string) {
    await authorize(this.momo, headers, 'disbursement');
    const transfer = UUID.test(referenceId) && (await this.disbursement.transferStatus(referenceId.toLowerCase()));
    if (!transfer) throw notFound();
    return transferBody(transfer);
  }

  @Post('v2_0/refund')
  async refund(@Headers() headers: RequestHeaders, @Body() body: unknown, @Res() reply: FastifyReply): Promise<void> {
    await authorize(this.momo, headers, 'disbursement');
    const created = creationHeaders(headers);
    const { fields, ...money } = parseMoneyFields(body);
    const { referenceIdToRefund } = fields;
    if (typeof referenceIdToRefund !== 'string' || !UUID.test(referenceIdToRefund))
      throw momoError(
        400,
        'INVALID_REFERENCE_ID',
        'referenceIdToRefund must be the X-Reference-Id of a request to pay',
      );
    const { created: isNew, answered } = await this.disbursement.refund({
      ...created,
      ...money,
      referenceIdToRefund: referenceIdToRefund.toLowerCase(),
    });
    await this.answer(reply, isNew, answered);
  }

  @Get('v1_0/refund/:referenceId')
  async refundStatus(@Headers() headers: RequestHeaders, @Param('referenceId') referenceId: string) {
    await authorize(this.momo, headers, 'disbursement');
    const refund = UUID.test(referenceId) && (await this.disbursement.refundStatus(referenceId.toLowerCase()));
    if (!refund) throw notFound();
    return refundBody(refund);
  }

  /** 202 for a new request, 409 for a reference id used before; a request planned to time out gets nothing. */
  private async answer(reply: FastifyReply, created: boolean, answered: boolean): Promise<void> {
    if (!created) throw duplicate();
    if (!answered) return leaveUnanswered(reply, this.background, this.config.unansweredHoldMs, this.draining.signal);
    await reply.status(202).send();
  }
}
