import { callProvider } from '../http';
import { isRecord, plainCode } from '../json';
import {
  ProviderRequestError,
  type CollectInitiateRequest,
  type CollectInitiation,
  type CollectOperations,
  type Connector,
  type ProviderOutcome,
} from '../port';
import { momoCallbackReference, momoOutcome, momoReferenceId } from './momo-protocol';

const PROVIDER = 'momo';

export interface MomoConnectorConfig {
  baseUrl: string;
  apiUser: string;
  apiKey: string;
  subscriptionKey: string;
  targetEnvironment: string;
  timeoutMs: number;
}

function rejected(status: number, body: unknown): ProviderRequestError {
  return new ProviderRequestError(PROVIDER, status, isRecord(body) ? plainCode(body.code) : undefined);
}

/** MTN MoMo's Collection API (or a provider, or the sandbox, speaking it) over HTTP. */
class MomoCollection implements CollectOperations {
  private token?: { value: string; refreshAt: number };
  private fetchingToken?: Promise<string>;

  constructor(private readonly config: MomoConnectorConfig) {}

  /** Idempotent per reference: the same X-Reference-Id again is answered 409, which counts as accepted. */
  async initiate(request: CollectInitiateRequest): Promise<CollectInitiation> {
    const referenceId = momoReferenceId(request.reference);
    const { status, body } = await this.authorized('POST', '/collection/v1_0/requesttopay', {
      headers: {
        'content-type': 'application/json',
        'x-reference-id': referenceId,
        'x-callback-url': request.notifyUrl,
      },
      body: JSON.stringify({
        amount: request.amount,
        currency: request.currency,
        externalId: request.reference,
        payer: { partyIdType: 'MSISDN', partyId: request.msisdn ?? '' },
        payerMessage: request.payerMessage,
        payeeNote: request.payeeNote,
      }),
    });
    if (status !== 202 && status !== 409) throw rejected(status, body);
    return { providerReference: referenceId };
  }

  async status(referenceId: string): Promise<ProviderOutcome> {
    const { status, body } = await this.authorized(
      'GET',
      `/collection/v1_0/requesttopay/${encodeURIComponent(referenceId)}`,
      {},
    );
    const outcome = status === 200 ? momoOutcome(body, referenceId) : undefined;
    if (!outcome) throw rejected(status, body);
    return outcome;
  }

  verifyNotification(body: unknown): string | null {
    return momoCallbackReference(body);
  }

  providerReferenceFor(reference: string): string {
    return momoReferenceId(reference);
  }

  /** Sends with the cached token; a 401 means the provider dropped it, so one fresh token is tried. */
  private async authorized(method: string, path: string, init: { headers?: Record<string, string>; body?: string }) {
    const send = (token: string) =>
      callProvider(
        PROVIDER,
        `${this.config.baseUrl}${path}`,
        {
          method,
          headers: {
            ...init.headers,
            authorization: `Bearer ${token}`,
            'ocp-apim-subscription-key': this.config.subscriptionKey,
            'x-target-environment': this.config.targetEnvironment,
          },
          body: init.body,
        },
        this.config.timeoutMs,
      );
    const token = await this.accessToken();
    const answer = await send(token);
    if (answer.status !== 401) return answer;
    if (this.token?.value === token) this.token = undefined;
    return send(await this.accessToken());
  }

  /** Concurrent callers share one token request. */
  private accessToken(): Promise<string> {
    if (this.token && Date.now() < this.token.refreshAt) return Promise.resolve(this.token.value);
    this.fetchingToken ??= this.fetchToken().finally(() => (this.fetchingToken = undefined));
    return this.fetchingToken;
  }

  private async fetchToken(): Promise<string> {
    const credentials = Buffer.from(`${this.config.apiUser}:${this.config.apiKey}`).toString('base64');
    const { status, body } = await callProvider(
      PROVIDER,
      `${this.config.baseUrl}/collection/token/`,
      {
        method: 'POST',
        headers: { authorization: `Basic ${credentials}`, 'ocp-apim-subscription-key': this.config.subscriptionKey },
      },
      this.config.timeoutMs,
    );
    if (status !== 200 || !isRecord(body) || typeof body.access_token !== 'string' || body.access_token === '')
      throw rejected(status, body);
    const token = body.access_token;
    const lifetimeMs = (typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : 3600) * 1000;
    // Renewed a minute early (half-way for short-lived tokens), so no request carries one about to lapse.
    this.token = { value: token, refreshAt: Date.now() + Math.max(lifetimeMs - 60_000, lifetimeMs / 2) };
    return token;
  }
}

export function momoConnector(config: MomoConnectorConfig): Connector {
  return { protocol: 'momo', collect: new MomoCollection(config) };
}
