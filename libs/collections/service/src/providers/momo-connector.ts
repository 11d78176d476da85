import { momoOutcome } from './momo-protocol';
import { ProviderRequestError, type MobileMoneyConnector, type MobileMoneyConnectorConfig, type ProviderOutcome } from './provider-connectors';
import { callProvider } from './provider-http';
import { isRecord, plainCode } from './provider-json';

const PROVIDER = 'momo';

function rejected(status: number, body: unknown): ProviderRequestError {
  return new ProviderRequestError(PROVIDER, status, isRecord(body) ? plainCode(body.code) : undefined);
}

/** MTN MoMo's Collection API (or the sandbox speaking it) over HTTP. */
export class HttpMobileMoneyConnector implements MobileMoneyConnector {
  private token?: { value: string; refreshAt: number };
  private fetchingToken?: Promise<string>;

  constructor(private readonly config: MobileMoneyConnectorConfig) {}

  async requestToPay(request: Parameters<MobileMoneyConnector['requestToPay']>[0]): Promise<void> {
    const { status, body } = await this.authorized('POST', '/collection/v1_0/requesttopay', {
      headers: { 'content-type': 'application/json', 'x-reference-id': request.referenceId, 'x-callback-url': request.callbackUrl },
      body: JSON.stringify({
        amount: request.amount,
        currency: request.currency,
        externalId: request.externalId,
        payer: { partyIdType: 'MSISDN', partyId: request.msisdn },
        payerMessage: request.payerMessage,
        payeeNote: request.payeeNote,
      }),
    });
    if (status !== 202 && status !== 409) throw rejected(status, body);
  }

  async status(referenceId: string): Promise<ProviderOutcome> {
    const { status, body } = await this.authorized('GET', `/collection/v1_0/requesttopay/${encodeURIComponent(referenceId)}`, {});
    const outcome = status === 200 ? momoOutcome(body, referenceId) : undefined;
    if (!outcome) throw rejected(status, body);
    return outcome;
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
      { method: 'POST', headers: { authorization: `Basic ${credentials}`, 'ocp-apim-subscription-key': this.config.subscriptionKey } },
      this.config.timeoutMs,
    );
    if (status !== 200 || !isRecord(body) || typeof body.access_token !== 'string' || body.access_token === '') throw rejected(status, body);
    const token = body.access_token;
    const lifetimeMs = (typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : 3600) * 1000;
    // Renewed a minute early (half-way for short-lived tokens), so no request carries one about to lapse.
    this.token = { value: token, refreshAt: Date.now() + Math.max(lifetimeMs - 60_000, lifetimeMs / 2) };
    return token;
  }
}
