import { Body, Controller, Get, Headers, HttpCode, Param, Post, UseFilters } from '@nestjs/common';
import { momoError, ProviderApiErrorFilter } from '../provider-api-error';
import { isAmount, isHttpUrl } from '../validation';
import { MomoSimulator, statusBody, TOKEN_LIFETIME_SECONDS } from './momo-simulator';
import type { RequestToPay } from './momo-store';
import { RateLimitedAs } from '@paygate/platform';

type RequestHeaders = Record<string, string | string[] | undefined>;

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const PARTY_ID_TYPES = ['MSISDN', 'EMAIL', 'PARTY_CODE'];

function header(headers: RequestHeaders, name: string): string | undefined {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value) || undefined;
}

function text(value: unknown, maxLength: number): value is string {
  return typeof value === 'string' && value.length <= maxLength;
}

/** Validates a requesttopay body field by field, answering MoMo's error codes. */
function parseRequestToPay(
  body: unknown,
): Pick<RequestToPay, 'amount' | 'currency' | 'externalId' | 'payer' | 'payerMessage' | 'payeeNote'> {
  if (typeof body !== 'object' || body === null)
    throw momoError(400, 'INVALID_BODY', 'The request body must be a JSON object');
  const { amount, currency, externalId, payer, payerMessage = '', payeeNote = '' } = body as Record<string, unknown>;
  if (!isAmount(amount)) throw momoError(400, 'INVALID_AMOUNT', 'amount must be a positive decimal string');
  if (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency))
    throw momoError(400, 'INVALID_CURRENCY', 'currency must be an ISO 4217 code');
  if (!text(externalId, 100) || externalId === '')
    throw momoError(400, 'INVALID_EXTERNAL_ID', 'externalId must be a string of 1 to 100 characters');
  const { partyIdType, partyId } = (typeof payer === 'object' && payer !== null ? payer : {}) as Record<
    string,
    unknown
  >;
  if (
    typeof partyIdType !== 'string' ||
    !PARTY_ID_TYPES.includes(partyIdType) ||
    !text(partyId, 100) ||
    partyId === ''
  ) {
    throw momoError(400, 'INVALID_PAYER', 'payer must have a partyIdType (MSISDN, EMAIL or PARTY_CODE) and a partyId');
  }
  if (partyIdType === 'MSISDN' && !/^\d{8,15}$/.test(partyId))
    throw momoError(400, 'INVALID_PAYER', 'an MSISDN partyId must be 8 to 15 digits');
  if (!text(payerMessage, 160))
    throw momoError(400, 'INVALID_PAYER_MESSAGE', 'payerMessage must be a string of at most 160 characters');
  if (!text(payeeNote, 160))
    throw momoError(400, 'INVALID_PAYEE_NOTE', 'payeeNote must be a string of at most 160 characters');
  return { amount, currency, externalId, payer: { partyIdType, partyId }, payerMessage, payeeNote };
}

/** MTN MoMo's Collection API: token, requesttopay, requesttopay status. */
@Controller('sandbox/momo/collection')
@RateLimitedAs('provider')
@UseFilters(ProviderApiErrorFilter)
export class MomoController {
  constructor(private readonly momo: MomoSimulator) {}

  // Nest strips one trailing slash, and MoMo's token path ends with one.
  @Post('token//')
  @HttpCode(200)
  async token(@Headers() headers: RequestHeaders) {
    const [scheme, encoded] = (header(headers, 'authorization') ?? '').split(' ');
    const [user, ...key] =
      scheme === 'Basic' && encoded ? Buffer.from(encoded, 'base64').toString('utf8').split(':') : [];
    if (!user || !key.join(':') || !header(headers, 'ocp-apim-subscription-key')) {
      throw momoError(401, 'INVALID_CREDENTIALS', 'Basic API user credentials and a subscription key are required');
    }
    return {
      access_token: await this.momo.issueToken(),
      token_type: 'access_token',
      expires_in: TOKEN_LIFETIME_SECONDS,
    };
  }

  @Post('v1_0/requesttopay')
  @HttpCode(202)
  async requestToPay(@Headers() headers: RequestHeaders, @Body() body: unknown): Promise<void> {
    await this.authorize(headers);
    const referenceId = header(headers, 'x-reference-id');
    if (!referenceId || !UUID_V4.test(referenceId))
      throw momoError(400, 'INVALID_REFERENCE_ID', 'X-Reference-Id must be a UUID version 4');
    const callbackUrl = header(headers, 'x-callback-url');
    if (callbackUrl !== undefined && !isHttpUrl(callbackUrl))
      throw momoError(400, 'INVALID_CALLBACK_URL_HOST', 'X-Callback-Url must be an http(s) URL');
    const accepted = await this.momo.requestToPay({
      referenceId: referenceId.toLowerCase(),
      callbackUrl,
      ...parseRequestToPay(body),
    });
    if (!accepted)
      throw momoError(409, 'RESOURCE_ALREADY_EXIST', 'Duplicated reference id. Creation of resource failed.');
  }

  @Get('v1_0/requesttopay/:referenceId')
  async status(@Headers() headers: RequestHeaders, @Param('referenceId') referenceId: string) {
    await this.authorize(headers);
    const request = await this.momo.status(referenceId.toLowerCase());
    if (!request) throw momoError(404, 'RESOURCE_NOT_FOUND', 'Requested resource was not found.');
    return statusBody(request);
  }

  private async authorize(headers: RequestHeaders): Promise<void> {
    const [scheme, token] = (header(headers, 'authorization') ?? '').split(' ');
    if (
      scheme !== 'Bearer' ||
      !token ||
      !header(headers, 'ocp-apim-subscription-key') ||
      !(await this.momo.tokenValid(token))
    ) {
      throw momoError(401, 'INVALID_CREDENTIALS', 'A valid access token and a subscription key are required');
    }
    if (header(headers, 'x-target-environment') !== 'sandbox') {
      throw momoError(403, 'NOT_ALLOWED_TARGET_ENVIRONMENT', 'X-Target-Environment must be sandbox');
    }
  }
}
