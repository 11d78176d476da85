import { verifyCollectionSignature } from '@paygate/signing';
import { MOMO_REQUEST } from '../fixtures/initialize-request';
import { eventually } from './wait';

export interface ApiResponse<Data = Record<string, unknown>> {
  status: number;
  body: { code: number; status: string; message: string; data: Data };
}

export interface MerchantCredentials {
  id: string;
  publicKey: string;
  secretKey: string;
  signingKey: string;
}

/** Timers short enough for tests; both modes get the same. */
export const TEST_TIMERS = {
  // Long enough for a PRN verdict to cross Kafka on a loaded machine; short enough to test expiry.
  CONFIRMATION_TIMEOUT_MS: '4000',
  PROMPT_TIMEOUT_MS: '1500',
  CHECKOUT_TIMEOUT_MS: '60000',
  PROVIDER_STATUS_POLL_MS: '300',
  TIMER_TICK_MS: '100',
  SANDBOX_LATENCY_MS: '50',
  PAYMENT_RETRY_ATTEMPTS: '3',
  PAYMENT_RETRY_BASE_MS: '200',
  PAYMENT_RETRY_MAX_DELAY_MS: '1000',
  PAYMENT_STATUS_POLL_MS: '3000',
  PAYMENT_TIMER_TICK_MS: '100',
  MONEY_OUT_STATUS_POLL_MS: '300',
  MONEY_OUT_TIMER_TICK_MS: '100',
  // A refund or payout request the sandbox never answers (0004, 0008) is dropped at once, and completes soon after.
  SANDBOX_UNANSWERED_HOLD_MS: '0',
  SANDBOX_LATE_COMPLETION_MS: '1500',
  // A payout to 0006 is reversed a second after it completed; Paygate watches completed payouts for a few seconds.
  SANDBOX_REVERSAL_DELAY_MS: '1000',
  PAYOUT_REVERSAL_WATCH_MS: '5000',
} as const;

/** Callbacks to local receivers, retried quickly. */
export const TEST_CALLBACK_SETTINGS = {
  ALLOW_PRIVATE_CALLBACKS: 'true',
  CALLBACK_TIMEOUT_MS: '2000',
  CALLBACK_RETRY_SCHEDULE: '0,200,500,1000',
  DISPATCH_TICK_MS: '50',
} as const;

/**
 * Rate limits stay on in tests, raised well above what the suites send: every test client is
 * 127.0.0.1 and the property suites send hundreds of requests a second as one merchant. Every app
 * a test starts gets these unless the test sets its own (the rate-limit specs do).
 */
export const TEST_RATE_LIMITS = {
  RATE_LIMIT_MERCHANT_PER_SECOND: '10000',
  RATE_LIMIT_MERCHANT_BURST: '10000',
  RATE_LIMIT_PUBLIC_PER_SECOND: '10000',
  RATE_LIMIT_PUBLIC_BURST: '10000',
  RATE_LIMIT_PROVIDER_PER_SECOND: '10000',
  RATE_LIMIT_PROVIDER_BURST: '10000',
} as const;

export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789';
export const TEST_MASTER_KEY = '0f'.repeat(32);

/** A merchant's view of the API, as an integration would use it. */
export class PaygateClient {
  constructor(
    readonly baseUrl: string,
    readonly merchant: MerchantCredentials,
  ) {}

  static async withNewMerchant(
    baseUrl: string,
    adminToken = TEST_ADMIN_TOKEN,
    name = 'Test merchant',
    callbackUrl?: string,
  ): Promise<PaygateClient> {
    const response = await fetch(`${baseUrl}/admin/v1/merchants`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
      body: JSON.stringify({ name, collection_callback_url: callbackUrl, service_payments_callback_url: callbackUrl }),
    });
    const body = (await response.json()) as ApiResponse<{
      id: string;
      public_key: string;
      secret_key: string;
      signing_key: string;
    }>['body'];
    if (response.status !== 201)
      throw new Error(`cannot create a merchant: ${response.status} ${JSON.stringify(body)}`);
    return new PaygateClient(baseUrl, {
      id: body.data.id,
      publicKey: body.data.public_key,
      secretKey: body.data.secret_key,
      signingKey: body.data.signing_key,
    });
  }

  async request<Data = Record<string, unknown>>(
    method: string,
    path: string,
    options: { body?: unknown; raw?: string; headers?: Record<string, string>; secret?: boolean } = {},
  ): Promise<ApiResponse<Data>> {
    const headers: Record<string, string> = { 'public-key': this.merchant.publicKey, ...options.headers };
    if (options.secret) headers['secret-key'] = this.merchant.secretKey;
    let body: string | undefined = options.raw;
    if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type'))
      headers['content-type'] = 'application/json';
    const response = await fetch(`${this.baseUrl}${path}`, { method, headers, body });
    const text = await response.text();
    let parsed: ApiResponse<Data>['body'];
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error(
        `${method} ${path} answered ${response.status} with a body that is not JSON: ${text.slice(0, 200)}`,
      );
    }
    return { status: response.status, body: parsed };
  }

  initialize(body: Record<string, unknown>) {
    return this.request('POST', '/v1/collections/initialize', { body });
  }

  confirm(internalReference: string) {
    return this.request('POST', '/v1/collections/confirm', { body: { internal_reference: internalReference } });
  }

  collection(internalReference: string) {
    return this.request('GET', `/v1/collections/${internalReference}`, { secret: true });
  }

  /** Polls the status endpoint until the collection leaves PENDING. */
  async finalState(internalReference: string, timeoutMs = 30_000): Promise<Record<string, unknown>> {
    return eventually(
      async () => {
        const { status, body } = await this.collection(internalReference);
        return status === 200 && body.data.transaction_status !== 'PENDING' ? body.data : undefined;
      },
      timeoutMs,
      `collection ${internalReference} to reach a final state`,
    );
  }

  /** Checks a card redirect's query against the merchant's signing key. */
  verifyRedirect(location: string): URLSearchParams {
    const query = new URL(location).searchParams;
    const record = {
      id: query.get('id') ?? '',
      internal_reference: query.get('internal_reference') ?? '',
      transaction_status: query.get('transaction_status') ?? '',
      merchant_reference: query.get('merchant_reference') ?? '',
    };
    if (!verifyCollectionSignature(this.merchant.signingKey, record, query.get('hmac_signature') ?? ''))
      throw new Error(`redirect signature does not verify: ${location}`);
    return query;
  }
}

let sequence = 0;
/** A merchant_reference no other test uses. */
export const uniqueReference = (prefix = 'test') => `${prefix}-${Date.now().toString(36)}-${(sequence++).toString(36)}`;

export const mobileMoneyRequest = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  merchant_reference: uniqueReference('momo'),
  ...MOMO_REQUEST,
  customer_email: 'jane@example.com',
  description: 'Order 1001',
  ...overrides,
});

export const cardRequest = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  merchant_reference: uniqueReference('card'),
  transaction_method: 'CARD',
  provider_code: 'card_ug',
  currency: 'UGX',
  amount: 25000,
  customer_name: 'Jane Doe',
  redirect_url: 'https://shop.example.com/paid?order=7',
  ...overrides,
});
