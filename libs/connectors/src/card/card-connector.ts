import { callProvider } from '../http';
import { isRecord, nonEmpty, plainCode } from '../json';
import {
  ProviderRequestError,
  type CollectInitiateRequest,
  type CollectInitiation,
  type CollectOperations,
  type Connector,
  type ProviderOutcome,
} from '../port';
import { cardNotificationSession, cardOutcome } from './card-protocol';

const PROVIDER = 'card';

export interface CardConnectorConfig {
  baseUrl: string;
  secretKey: string;
  timeoutMs: number;
}

function rejected(status: number, body: unknown): ProviderRequestError {
  return new ProviderRequestError(
    PROVIDER,
    status,
    isRecord(body) && isRecord(body.error) ? plainCode(body.error.code) : undefined,
  );
}

/** The card provider's checkout-session API (or the sandbox speaking it) over HTTP. */
class CardCollection implements CollectOperations {
  constructor(private readonly config: CardConnectorConfig) {}

  /** Idempotent per reference: the provider hands back the session still open for it. */
  async initiate(request: CollectInitiateRequest): Promise<CollectInitiation> {
    const { status, body } = await this.call('POST', '/v1/checkout/sessions', {
      reference: request.reference,
      amount: request.amount,
      currency: request.currency,
      description: request.description,
      notify_url: request.notifyUrl,
      return_url: request.returnUrl,
      expires_at: request.expiresAt,
    });
    const sessionId = isRecord(body) ? nonEmpty(body.id) : undefined;
    const paymentUrl = isRecord(body) ? nonEmpty(body.payment_url) : undefined;
    // The payer's browser is sent to paymentUrl: only an http(s) page will do.
    if (status < 200 || status > 299 || !sessionId || !paymentUrl || !/^https?:\/\//.test(paymentUrl))
      throw rejected(status, body);
    return { providerReference: sessionId, paymentUrl };
  }

  async status(sessionId: string): Promise<ProviderOutcome> {
    const { status, body } = await this.call('GET', `/v1/checkout/sessions/${encodeURIComponent(sessionId)}`);
    const outcome = status === 200 && isRecord(body) ? cardOutcome(body, sessionId) : undefined;
    if (!outcome) throw rejected(status, body);
    return outcome;
  }

  verifyNotification(body: unknown): string | null {
    return cardNotificationSession(body);
  }

  private call(method: string, path: string, body?: Record<string, unknown>) {
    return callProvider(
      PROVIDER,
      `${this.config.baseUrl}${path}`,
      {
        method,
        headers: {
          authorization: `Bearer ${this.config.secretKey}`,
          ...(body && { 'content-type': 'application/json' }),
        },
        body: body && JSON.stringify(body),
      },
      this.config.timeoutMs,
    );
  }
}

export function cardConnector(config: CardConnectorConfig): Connector {
  return { protocol: 'card', collect: new CardCollection(config) };
}
