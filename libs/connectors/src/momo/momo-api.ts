import { callProvider } from '../http';
import { isRecord, plainCode } from '../json';
import { ProviderRequestError } from '../port';

export const PROVIDER = 'momo';

export interface MomoConnectorConfig {
  baseUrl: string;
  apiUser: string;
  apiKey: string;
  /** The Collection product's subscription key. */
  subscriptionKey: string;
  /** The Disbursement product's (payouts, refunds): MTN issues one per product. */
  disbursementSubscriptionKey: string;
  targetEnvironment: string;
  timeoutMs: number;
}

/** MTN's API products: each has its own token endpoint, subscription key and so its own tokens. */
export type MomoProduct = 'collection' | 'disbursement';

export function rejected(status: number, body: unknown): ProviderRequestError {
  return new ProviderRequestError(PROVIDER, status, isRecord(body) ? plainCode(body.code) : undefined);
}

/** One MoMo API product over HTTP: its access token, cached and shared by concurrent callers. */
export class MomoProductApi {
  private token?: { value: string; refreshAt: number };
  private fetchingToken?: Promise<string>;

  constructor(
    private readonly config: MomoConnectorConfig,
    private readonly product: MomoProduct,
  ) {}

  private get subscriptionKey(): string {
    return this.product === 'collection' ? this.config.subscriptionKey : this.config.disbursementSubscriptionKey;
  }

  /** Sends with the cached token; a 401 means the provider dropped it, so one fresh token is tried. */
  async authorized(method: string, path: string, init: { headers?: Record<string, string>; body?: string } = {}) {
    const send = (token: string) =>
      callProvider(
        PROVIDER,
        `${this.config.baseUrl}/${this.product}${path}`,
        {
          method,
          headers: {
            ...init.headers,
            authorization: `Bearer ${token}`,
            'ocp-apim-subscription-key': this.subscriptionKey,
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
      `${this.config.baseUrl}/${this.product}/token/`,
      {
        method: 'POST',
        headers: { authorization: `Basic ${credentials}`, 'ocp-apim-subscription-key': this.subscriptionKey },
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
