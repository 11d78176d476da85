/**
 * Shared setup of the collections API specs (collections-api.*.spec.ts): one in-process Paygate
 * on PGlite per spec file, two merchants, and the checks of the response envelope.
 *
 * Timers are long so that nothing changes in the background while a test counts events:
 * mobile money numbers ending 0004 never answer, checkouts stay open, and no collection is
 * cancelled for want of confirmation.
 *
 * Test code (it uses jest's `expect`): jest does not collect it (not *.spec.ts) and the build
 * leaves it out (tsconfig.build.json).
 */
import type { RecordedEvent } from '@paygate/event-store';
import { PaygateClient, TEST_ADMIN_TOKEN, TEST_TIMERS } from '@paygate/testing';
import type { InProcessPaygate } from '@paygate/standalone';
import { startTestPaygate } from '../standalone/test-paygate';

export type Json = Record<string, unknown>;

export interface Answer {
  status: number;
  headers: Headers;
  contentType: string;
  text: string;
  body: { code: number; status: string; message: string; data: Json };
}

const HOUR_MS = '3600000';
const QUIET_TIMERS = {
  ...TEST_TIMERS,
  CONFIRMATION_TIMEOUT_MS: HOUR_MS,
  PROMPT_TIMEOUT_MS: HOUR_MS,
  CHECKOUT_TIMEOUT_MS: HOUR_MS,
};

/** A mobile money number the sandbox never answers: the collection stays PENDING, quietly. */
export const SILENT_MTN = '256772000004';

export const INTERNAL_REFERENCE = /^PG[0-9A-Z]{24}$/;
export const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

export const RECORD_FIELDS = [
  'id',
  'merchant_reference',
  'internal_reference',
  'transaction_type',
  'request_currency',
  'request_amount',
  'transaction_currency',
  'transaction_amount',
  'transaction_fee',
  'charge_customer',
  'total_credit',
  'provider_code',
  'transaction_status',
  'status_message',
  'livemode',
];

const envelopeStatus = (code: number) => (code === 202 ? 'accepted' : code >= 400 ? 'error' : 'success');

/** `{code, status, message, data}` and nothing else, code equal to the HTTP status, data an object. */
export function expectEnvelope(answer: { status: number; body: unknown }, code: number): void {
  expect({ status: answer.status, body: answer.body }).toEqual({
    status: code,
    body: { code, status: envelopeStatus(code), message: expect.any(String), data: expect.any(Object) },
  });
  expect(Array.isArray((answer.body as Answer['body']).data)).toBe(false);
}

export function expectFieldErrors(
  answer: { status: number; body: Answer['body'] },
  fields: string[],
  message?: string,
): void {
  expectEnvelope(answer, 400);
  const errors = answer.body.data.errors as { field: string; message: string }[];
  expect(Array.isArray(errors)).toBe(true);
  for (const error of errors) expect(error).toEqual({ field: expect.any(String), message: expect.any(String) });
  const named = errors.map((error) => error.field);
  for (const field of fields) expect(named).toContain(field);
  if (message !== undefined) expect(errors).toContainEqual({ field: fields[0], message });
}

export interface ApiPaygate {
  paygate: InProcessPaygate;
  /** The merchant the specs act as. */
  client: PaygateClient;
  /** Another merchant, for what one merchant must not see of another's. */
  other: PaygateClient;
}

/** Paygate with the quiet timers, and its two merchants. */
async function startApiPaygate(): Promise<ApiPaygate> {
  const paygate = await startTestPaygate({
    ...QUIET_TIMERS,
  });
  const client = await PaygateClient.withNewMerchant(paygate.url, TEST_ADMIN_TOKEN, 'API spec merchant');
  const other = await PaygateClient.withNewMerchant(paygate.url, TEST_ADMIN_TOKEN, 'Another merchant');
  return { paygate, client, other };
}

/**
 * Starts the API Paygate before the file's tests and closes it after. `api` is filled in by beforeAll: read its
 * parts inside tests, not while describing them.
 */
export function useApiPaygate() {
  const api = {} as ApiPaygate;
  beforeAll(async () => {
    Object.assign(api, await startApiPaygate());
  });
  afterAll(async () => {
    await api.paygate?.close();
  });
  return { api, ...apiHelpers(() => api.paygate) };
}

/** Requests and reads against the Paygate `paygate()` returns (called per use: it is started in beforeAll). */
export function apiHelpers(paygate: () => InProcessPaygate) {
  /** A request without any credential unless given in `headers`. */
  async function http(
    method: string,
    path: string,
    options: { headers?: Record<string, string>; body?: string | Uint8Array; json?: unknown } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = { ...options.headers };
    let body = options.body;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type'))
        headers['content-type'] = 'application/json';
    }
    const response = await fetch(`${paygate().url}${path}`, { method, headers, body });
    const text = await response.text();
    let parsed: Answer['body'];
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined as unknown as Answer['body'];
    }
    return {
      status: response.status,
      headers: response.headers,
      contentType: response.headers.get('content-type') ?? '',
      text,
      body: parsed,
    };
  }

  const admin = (method: string, path: string, json?: unknown, token = TEST_ADMIN_TOKEN) =>
    http(method, `/admin/v1/merchants${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {}, json });

  async function collectionEvents(): Promise<RecordedEvent[]> {
    return paygate().infrastructure.store.readAll({ streamPrefixes: ['collection-'], maxCount: 1_000_000 });
  }

  return { http, admin, collectionEvents };
}

/** Merchant headers: the public key, and `extra`. */
export const as = (merchant: PaygateClient, extra: Record<string, string> = {}) => ({
  'public-key': merchant.merchant.publicKey,
  ...extra,
});
export const withSecret = (merchant: PaygateClient) => as(merchant, { 'secret-key': merchant.merchant.secretKey });

/** Initializes `body` as `merchant`, expects 202 in the envelope and returns its data. */
export async function initialized(merchant: PaygateClient, body: Json): Promise<Json> {
  const answer = await merchant.initialize(body);
  expectEnvelope(answer, 202);
  return answer.body.data;
}
