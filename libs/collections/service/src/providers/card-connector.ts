import { cardOutcome } from './card-protocol';
import { ProviderRequestError, type CardConnector, type CardConnectorConfig, type ProviderOutcome } from './provider-connectors';
import { callProvider } from './provider-http';
import { isRecord, plainCode } from './provider-json';

const PROVIDER = 'card';

function rejected(status: number, body: unknown): ProviderRequestError {
  return new ProviderRequestError(PROVIDER, status, isRecord(body) && isRecord(body.error) ? plainCode(body.error.code) : undefined);
}

/** The card provider's checkout-session API (or the sandbox speaking it) over HTTP. */
export class HttpCardConnector implements CardConnector {
  constructor(private readonly config: CardConnectorConfig) {}

  async createCheckoutSession(request: Parameters<CardConnector['createCheckoutSession']>[0]): Promise<{ sessionId: string; paymentUrl: string }> {
    const { status, body } = await this.call('POST', '/v1/checkout/sessions', {
      reference: request.reference,
      amount: request.amount,
      currency: request.currency,
      description: request.description,
      notify_url: request.notifyUrl,
      return_url: request.returnUrl,
      expires_at: request.expiresAt,
    });
    if (status < 200 || status > 299 || !isRecord(body) || typeof body.id !== 'string' || typeof body.payment_url !== 'string') throw rejected(status, body);
    return { sessionId: body.id, paymentUrl: body.payment_url };
  }

  async status(sessionId: string): Promise<ProviderOutcome> {
    const { status, body } = await this.call('GET', `/v1/checkout/sessions/${encodeURIComponent(sessionId)}`);
    const outcome = status === 200 && isRecord(body) ? cardOutcome(body, sessionId) : undefined;
    if (!outcome) throw rejected(status, body);
    return outcome;
  }

  private call(method: string, path: string, body?: Record<string, unknown>) {
    return callProvider(
      PROVIDER,
      `${this.config.baseUrl}${path}`,
      {
        method,
        headers: { authorization: `Bearer ${this.config.secretKey}`, ...(body && { 'content-type': 'application/json' }) },
        body: body && JSON.stringify(body),
      },
      this.config.timeoutMs,
    );
  }
}
