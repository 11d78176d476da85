import { Body, Controller, Get, Headers, HttpCode, Param, Post, UseFilters } from '@nestjs/common';
import { RateLimitedAs } from '@paygate/platform';
import { momoError, ProviderApiErrorFilter } from '../provider-api-error';
import { MomoSimulator, statusBody } from './momo-simulator';
import { authorize, creationHeaders, issueToken, parseMoneyFields, parseParty, type RequestHeaders } from './momo-http';

/** MTN MoMo's Collection API: token, requesttopay, requesttopay status. */
@Controller('sandbox/momo/collection')
@RateLimitedAs('provider')
@UseFilters(ProviderApiErrorFilter)
export class MomoController {
  constructor(private readonly momo: MomoSimulator) {}

  // Nest strips one trailing slash, and MoMo's token path ends with one.
  @Post('token//')
  @HttpCode(200)
  token(@Headers() headers: RequestHeaders) {
    return issueToken(this.momo, headers, 'collection');
  }

  @Post('v1_0/requesttopay')
  @HttpCode(202)
  async requestToPay(@Headers() headers: RequestHeaders, @Body() body: unknown): Promise<void> {
    await authorize(this.momo, headers, 'collection');
    const created = creationHeaders(headers);
    const { fields, ...money } = parseMoneyFields(body);
    const accepted = await this.momo.requestToPay({
      ...created,
      ...money,
      payer: parseParty(fields.payer, 'payer'),
    });
    if (!accepted)
      throw momoError(409, 'RESOURCE_ALREADY_EXIST', 'Duplicated reference id. Creation of resource failed.');
  }

  @Get('v1_0/requesttopay/:referenceId')
  async status(@Headers() headers: RequestHeaders, @Param('referenceId') referenceId: string) {
    await authorize(this.momo, headers, 'collection');
    const request = await this.momo.status(referenceId.toLowerCase());
    if (!request) throw momoError(404, 'RESOURCE_NOT_FOUND', 'Requested resource was not found.');
    return statusBody(request);
  }
}
