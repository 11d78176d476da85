import { momoError } from '../provider-api-error';
import { isAmount, isHttpUrl } from '../validation';
import type { MomoProduct, MomoSimulator } from './momo-simulator';
import { TOKEN_LIFETIME_SECONDS } from './momo-simulator';

/** What MoMo's APIs share: headers, credentials, tokens, and the fields of a money request. */

export type RequestHeaders = Record<string, string | string[] | undefined>;

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const PARTY_ID_TYPES = ['MSISDN', 'EMAIL', 'PARTY_CODE'];

export function header(headers: RequestHeaders, name: string): string | undefined {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value) || undefined;
}

function text(value: unknown, maxLength: number): value is string {
  return typeof value === 'string' && value.length <= maxLength;
}

/** A product's token endpoint: Basic API user credentials and a subscription key buy a bearer token. */
export async function issueToken(momo: MomoSimulator, headers: RequestHeaders, product: MomoProduct) {
  const [scheme, encoded] = (header(headers, 'authorization') ?? '').split(' ');
  const [user, ...key] =
    scheme === 'Basic' && encoded ? Buffer.from(encoded, 'base64').toString('utf8').split(':') : [];
  if (!user || !key.join(':') || !header(headers, 'ocp-apim-subscription-key')) {
    throw momoError(401, 'INVALID_CREDENTIALS', 'Basic API user credentials and a subscription key are required');
  }
  return {
    access_token: await momo.issueToken(product),
    token_type: 'access_token',
    expires_in: TOKEN_LIFETIME_SECONDS,
  };
}

/** A call to a product's API: a token that product issued, a subscription key, the sandbox environment. */
export async function authorize(momo: MomoSimulator, headers: RequestHeaders, product: MomoProduct): Promise<void> {
  const [scheme, token] = (header(headers, 'authorization') ?? '').split(' ');
  if (
    scheme !== 'Bearer' ||
    !token ||
    !header(headers, 'ocp-apim-subscription-key') ||
    !(await momo.tokenValid(token, product))
  ) {
    throw momoError(401, 'INVALID_CREDENTIALS', 'A valid access token and a subscription key are required');
  }
  if (header(headers, 'x-target-environment') !== 'sandbox') {
    throw momoError(403, 'NOT_ALLOWED_TARGET_ENVIRONMENT', 'X-Target-Environment must be sandbox');
  }
}

/** The X-Reference-Id (lower case) and X-Callback-Url of a request creating a resource. */
export function creationHeaders(headers: RequestHeaders): { referenceId: string; callbackUrl?: string } {
  const referenceId = header(headers, 'x-reference-id');
  if (!referenceId || !UUID_V4.test(referenceId))
    throw momoError(400, 'INVALID_REFERENCE_ID', 'X-Reference-Id must be a UUID version 4');
  const callbackUrl = header(headers, 'x-callback-url');
  if (callbackUrl !== undefined && !isHttpUrl(callbackUrl))
    throw momoError(400, 'INVALID_CALLBACK_URL_HOST', 'X-Callback-Url must be an http(s) URL');
  return { referenceId: referenceId.toLowerCase(), callbackUrl };
}

export interface MoneyFields {
  amount: string;
  currency: string;
  externalId: string;
  payerMessage: string;
  payeeNote: string;
}

/** The fields every money request has, validated one by one with MoMo's error codes. */
export function parseMoneyFields(body: unknown): MoneyFields & { fields: Record<string, unknown> } {
  if (typeof body !== 'object' || body === null)
    throw momoError(400, 'INVALID_BODY', 'The request body must be a JSON object');
  const fields = body as Record<string, unknown>;
  const { amount, currency, externalId, payerMessage = '', payeeNote = '' } = fields;
  if (!isAmount(amount)) throw momoError(400, 'INVALID_AMOUNT', 'amount must be a positive decimal string');
  if (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency))
    throw momoError(400, 'INVALID_CURRENCY', 'currency must be an ISO 4217 code');
  if (!text(externalId, 100) || externalId === '')
    throw momoError(400, 'INVALID_EXTERNAL_ID', 'externalId must be a string of 1 to 100 characters');
  if (!text(payerMessage, 160))
    throw momoError(400, 'INVALID_PAYER_MESSAGE', 'payerMessage must be a string of at most 160 characters');
  if (!text(payeeNote, 160))
    throw momoError(400, 'INVALID_PAYEE_NOTE', 'payeeNote must be a string of at most 160 characters');
  return { amount, currency, externalId, payerMessage, payeeNote, fields };
}

/** A payer or payee: `{partyIdType, partyId}`, an MSISDN being 8 to 15 digits. */
export function parseParty(value: unknown, role: 'payer' | 'payee'): { partyIdType: string; partyId: string } {
  const code = role === 'payer' ? 'INVALID_PAYER' : 'INVALID_PAYEE';
  const { partyIdType, partyId } = (typeof value === 'object' && value !== null ? value : {}) as Record<
    string,
    unknown
  >;
  if (
    typeof partyIdType !== 'string' ||
    !PARTY_ID_TYPES.includes(partyIdType) ||
    !text(partyId, 100) ||
    partyId === ''
  ) {
    throw momoError(400, code, `${role} must have a partyIdType (MSISDN, EMAIL or PARTY_CODE) and a partyId`);
  }
  if (partyIdType === 'MSISDN' && !/^\d{8,15}$/.test(partyId))
    throw momoError(400, code, 'an MSISDN partyId must be 8 to 15 digits');
  return { partyIdType, partyId };
}
