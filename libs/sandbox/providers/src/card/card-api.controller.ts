import { Body, Controller, Get, Headers, HttpCode, Inject, Param, Post, UseFilters } from '@nestjs/common';
import { cardApiError, ProviderApiErrorFilter } from '../provider-api-error';
import { SANDBOX_CONFIG, type SandboxConfig } from '../sandbox-config';
import { isAmount, isHttpUrl } from '../validation';
import { CardCheckout } from './card-checkout';
import type { CheckoutSession, NewCheckoutSession } from './card-store';
import { RateLimitedAs } from '@paygate/platform';

function parseNewSession(body: unknown): NewCheckoutSession {
  const invalid = (param: string, message: string) => cardApiError(400, 'parameter_invalid', message, param);
  if (typeof body !== 'object' || body === null)
    throw cardApiError(400, 'invalid_request', 'the request body must be a JSON object');
  const { reference, amount, currency, description, notify_url, return_url, expires_at } = body as Record<
    string,
    unknown
  >;
  if (typeof reference !== 'string' || reference.length === 0 || reference.length > 100) {
    throw invalid('reference', 'reference must be a string of 1 to 100 characters');
  }
  if (!isAmount(amount)) throw invalid('amount', 'amount must be a positive decimal string');
  if (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency))
    throw invalid('currency', 'currency must be an ISO 4217 code');
  if (description !== undefined && (typeof description !== 'string' || description.length > 255)) {
    throw invalid('description', 'description must be a string of at most 255 characters');
  }
  if (!isHttpUrl(notify_url)) throw invalid('notify_url', 'notify_url must be an http(s) URL');
  if (!isHttpUrl(return_url)) throw invalid('return_url', 'return_url must be an http(s) URL');
  const expiresAt = typeof expires_at === 'string' ? new Date(expires_at) : undefined;
  if (!expiresAt || Number.isNaN(expiresAt.getTime()) || expiresAt.getTime() <= Date.now()) {
    throw invalid('expires_at', 'expires_at must be an ISO 8601 time in the future');
  }
  return {
    reference,
    amount,
    currency,
    description: description || undefined,
    notifyUrl: notify_url,
    returnUrl: return_url,
    expiresAt,
  };
}

function sessionBody(session: CheckoutSession): Record<string, unknown> {
  return {
    id: session.id,
    reference: session.reference,
    status: session.status,
    failure_code: session.failureCode,
    card: session.card,
    expires_at: session.expiresAt.toISOString(),
  };
}

/** The card provider's server API: checkout sessions, authenticated by the merchant's secret key. */
@Controller('sandbox/card/v1/checkout/sessions')
@RateLimitedAs('provider')
@UseFilters(ProviderApiErrorFilter)
export class CardApiController {
  constructor(
    private readonly checkout: CardCheckout,
    @Inject(SANDBOX_CONFIG) private readonly config: SandboxConfig,
  ) {}

  @Post()
  @HttpCode(201)
  async create(
    @Headers('authorization') authorization: string | undefined,
    @Headers('host') host: string | undefined,
    @Body() body: unknown,
  ) {
    authorize(authorization);
    const session = await this.checkout.open(parseNewSession(body));
    const base = this.config.publicUrl ?? `http://${host ?? 'localhost'}`;
    return {
      id: session.id,
      payment_url: `${base}/sandbox/card/checkout/${session.id}`,
      status: session.status,
      expires_at: session.expiresAt.toISOString(),
    };
  }

  @Get(':id')
  async get(@Headers('authorization') authorization: string | undefined, @Param('id') id: string) {
    authorize(authorization);
    const session = await this.checkout.find(id);
    if (!session) throw cardApiError(404, 'resource_missing', 'No such checkout session');
    return sessionBody(session);
  }
}

/** Any non-empty secret key is accepted: the sandbox has no merchant accounts. */
export function authorize(authorization: string | undefined): void {
  const [scheme, secret] = (authorization ?? '').split(' ');
  if (scheme !== 'Bearer' || !secret)
    throw cardApiError(401, 'unauthorized', 'a secret key is required as a Bearer token');
}
