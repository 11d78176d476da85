import { callProvider } from '../http';
import { isRecord, nonEmpty, plainCode } from '../json';
import {
  ProviderRequestError,
  type CollectInitiateRequest,
  type CollectInitiation,
  type CollectOperations,
  type Connector,
  type MoneyOutOutcome,
  type ProviderOutcome,
  type RefundOperations,
  type RefundRequest,
} from '../port';
import {
  cardNotificationSession,
  cardOutcome,
  cardRefundNotificationReference,
  cardRefundOutcome,
} from './card-protocol';

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
    return callCardApi(this.config, method, path, body);
  }
}

/**
 * Refunds of card charges, by the reference the charge's checkout session was opened with. Idempotent per refund
 * reference: the provider answers the refund it already has for it.
 */
class CardRefund implements RefundOperations {
  readonly partial = true;

  constructor(private readonly config: CardConnectorConfig) {}

  async send(request: RefundRequest): Promise<void> {
    const { status, body } = await callCardApi(this.config, 'POST', '/v1/refunds', {
      reference: request.reference,
      payment_reference: request.collectionReference,
      amount: request.amount,
      currency: request.currency,
      description: request.payerMessage,
      notify_url: request.notifyUrl,
    });
    if (status < 200 || status > 299 || !cardRefundOutcome(body)) throw rejected(status, body);
  }

  /** The provider lists refunds by reference: none is NOT_FOUND. */
  async status(reference: string): Promise<MoneyOutOutcome> {
    const { status, body } = await callCardApi(
      this.config,
      'GET',
      `/v1/refunds?reference=${encodeURIComponent(reference)}`,
    );
    const refunds = status === 200 && isRecord(body) && Array.isArray(body.data) ? body.data : undefined;
    if (refunds?.length === 0) return { status: 'NOT_FOUND' };
    const outcome = refunds?.length === 1 ? cardRefundOutcome(refunds[0]) : undefined;
    if (!outcome) throw rejected(status, body);
    return outcome;
  }

  verifyNotification(body: unknown): string | null {
    return cardRefundNotificationReference(body);
  }
}

function callCardApi(config: CardConnectorConfig, method: string, path: string, body?: Record<string, unknown>) {
  return callProvider(
    PROVIDER,
    `${config.baseUrl}${path}`,
    {
      method,
      headers: {
        authorization: `Bearer ${config.secretKey}`,
        ...(body && { 'content-type': 'application/json' }),
      },
      body: body && JSON.stringify(body),
    },
    config.timeoutMs,
  );
}

export function cardConnector(config: CardConnectorConfig): Connector {
  return { protocol: 'card', collect: new CardCollection(config), refund: new CardRefund(config) };
}
