/**
 * The merchant-facing collections API and the admin API, rule by rule (DESIGN §2 and §3),
 * against one in-process Paygate on PGlite.
 *
 * Timers are long so that nothing changes in the background while a test counts events:
 * mobile money numbers ending 0004 never answer, checkouts stay open, and no collection is
 * cancelled for want of confirmation.
 */
import type { RecordedEvent } from '@paygate/event-store';
import { cardRequest, mobileMoneyRequest, PaygateClient, TEST_ADMIN_TOKEN, TEST_MASTER_KEY, TEST_TIMERS, uniqueReference } from '@paygate/testing';
import { startInProcess, type InProcessPaygate } from './in-process';

type Json = Record<string, unknown>;

interface Answer {
  status: number;
  contentType: string;
  text: string;
  body: { code: number; status: string; message: string; data: Json };
}

const HOUR_MS = '3600000';
const QUIET_TIMERS = { ...TEST_TIMERS, CONFIRMATION_TIMEOUT_MS: HOUR_MS, PROMPT_TIMEOUT_MS: HOUR_MS, CHECKOUT_TIMEOUT_MS: HOUR_MS };

/** A mobile money number the sandbox never answers: the collection stays PENDING, quietly. */
const SILENT_MTN = '256772000004';

const INTERNAL_REFERENCE = /^PG[0-9A-Z]{24}$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

const RECORD_FIELDS = [
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
];

const envelopeStatus = (code: number) => (code === 202 ? 'accepted' : code >= 400 ? 'error' : 'success');

/** `{code, status, message, data}` and nothing else, code equal to the HTTP status, data an object. */
function expectEnvelope(answer: { status: number; body: unknown }, code: number): void {
  expect({ status: answer.status, body: answer.body }).toEqual({
    status: code,
    body: { code, status: envelopeStatus(code), message: expect.any(String), data: expect.any(Object) },
  });
  expect(Array.isArray((answer.body as Answer['body']).data)).toBe(false);
}

function expectFieldErrors(answer: { status: number; body: Answer['body'] }, fields: string[], message?: string): void {
  expectEnvelope(answer, 400);
  const errors = answer.body.data.errors as { field: string; message: string }[];
  expect(Array.isArray(errors)).toBe(true);
  for (const error of errors) expect(error).toEqual({ field: expect.any(String), message: expect.any(String) });
  const named = errors.map((error) => error.field);
  for (const field of fields) expect(named).toContain(field);
  if (message !== undefined) expect(errors).toContainEqual({ field: fields[0], message });
}

describe('collections API (DESIGN §2, §3)', () => {
  let paygate: InProcessPaygate;
  let client: PaygateClient;
  let other: PaygateClient;

  /** A request without any credential unless given in `headers`. */
  async function http(method: string, path: string, options: { headers?: Record<string, string>; body?: string | Uint8Array; json?: unknown } = {}): Promise<Answer> {
    const headers: Record<string, string> = { ...options.headers };
    let body = options.body;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
    }
    const response = await fetch(`${paygate.url}${path}`, { method, headers, body });
    const text = await response.text();
    let parsed: Answer['body'];
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined as unknown as Answer['body'];
    }
    return { status: response.status, contentType: response.headers.get('content-type') ?? '', text, body: parsed };
  }

  const admin = (method: string, path: string, json?: unknown, token = TEST_ADMIN_TOKEN) =>
    http(method, `/admin/v1/merchants${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {}, json });

  const as = (merchant: PaygateClient, extra: Record<string, string> = {}) => ({ 'public-key': merchant.merchant.publicKey, ...extra });
  const withSecret = (merchant: PaygateClient) => as(merchant, { 'secret-key': merchant.merchant.secretKey });

  async function collectionEvents(): Promise<RecordedEvent[]> {
    return paygate.infrastructure.store.readAll({ streamPrefixes: ['collection-'], maxCount: 1_000_000 });
  }

  async function initialized(merchant: PaygateClient, body: Json): Promise<Json> {
    const answer = await merchant.initialize(body);
    expectEnvelope(answer, 202);
    return answer.body.data;
  }

  beforeAll(async () => {
    paygate = await startInProcess({ ...QUIET_TIMERS, MASTER_KEY: TEST_MASTER_KEY, ADMIN_TOKEN: TEST_ADMIN_TOKEN, LOG_LEVEL: 'error' });
    client = await PaygateClient.withNewMerchant(paygate.url, TEST_ADMIN_TOKEN, 'API spec merchant');
    other = await PaygateClient.withNewMerchant(paygate.url, TEST_ADMIN_TOKEN, 'Another merchant');
  });

  afterAll(async () => {
    await paygate?.close();
  });

  describe('envelope and paths', () => {
    it('answers every kind of request in the envelope, code equal to the HTTP status', async () => {
      const accepted = await client.initialize(mobileMoneyRequest({ msisdn: SILENT_MTN }));
      expectEnvelope(accepted, 202);
      expectEnvelope(await client.request('GET', `/v1/collections/${accepted.body.data.internal_reference as string}`, { secret: true }), 200);
      expectEnvelope(await client.request('GET', '/v1/payment-providers'), 200);
      expectEnvelope(await client.initialize({}), 400);
      expectEnvelope(await http('POST', '/v1/collections/initialize', { json: mobileMoneyRequest() }), 401);
      expectEnvelope(await client.confirm('PG0000000000000000000000NO'), 404);
      expectEnvelope(await admin('POST', '', { name: 'Envelope merchant' }), 201);
    });

    it.each([
      ['GET', '/v1/no-such-endpoint'],
      ['PUT', '/v1/collections/initialize'],
      ['DELETE', '/v1/collections/confirm'],
    ])('an unknown route (%s %s) answers 404 in the envelope', async (method, path) => {
      const answer = await http(method, path, { headers: as(client) });
      expectEnvelope(answer, 404);
    });

    it.each([
      ['/v1/collections/initialize', {}],
      ['/v1/collections/initialize', { 'x-api-version': '1' }],
      ['/collections/initialize', {}],
      ['/collections/initialize', { 'x-api-version': '1' }],
    ])('initialize answers at %s with headers %j', async (path, headers) => {
      const answer = await client.request('POST', path, { body: mobileMoneyRequest({ msisdn: SILENT_MTN }), headers });
      expectEnvelope(answer, 202);
      expect(answer.body.data.internal_reference).toMatch(INTERNAL_REFERENCE);
    });

    it.each([
      ['/v1/collections/initialize', '2'],
      ['/collections/initialize', '2'],
      ['/v1/collections/initialize', '0'],
      ['/collections/initialize', 'v2'],
    ])('initialize at %s with x-api-version %s answers 400 and writes nothing', async (path, version) => {
      const before = (await collectionEvents()).length;
      const answer = await client.request('POST', path, { body: mobileMoneyRequest({ msisdn: SILENT_MTN }), headers: { 'x-api-version': version } });
      expectEnvelope(answer, 400);
      expect((await collectionEvents()).length).toBe(before);
    });

    it.each([
      ['/v1/collections/confirm', {}],
      ['/v1/collections/confirm', { 'x-api-version': '1' }],
      ['/collections/confirm', {}],
      ['/collections/confirm', { 'x-api-version': '1' }],
    ])('confirm answers at %s with headers %j', async (path, headers) => {
      const { internal_reference } = await initialized(client, mobileMoneyRequest({ msisdn: SILENT_MTN }));
      const answer = await client.request('POST', path, { body: { internal_reference }, headers });
      expectEnvelope(answer, 202);
      expect(answer.body.message).toBe('You will receive a prompt to pay UGX 81,000 on your mobile. Enter PIN to approve payment');
    });

    it.each(['/v1/collections/confirm', '/collections/confirm'])('confirm at %s with x-api-version 2 answers 400', async (path) => {
      const { internal_reference } = await initialized(client, mobileMoneyRequest({ msisdn: SILENT_MTN }));
      const answer = await client.request('POST', path, { body: { internal_reference }, headers: { 'x-api-version': '2' } });
      expectEnvelope(answer, 400);
      // Still awaiting confirmation: the refused request confirmed nothing.
      const events = await paygate.infrastructure.store.readStream(`collection-${internal_reference as string}`);
      expect(events.map((event) => event.type)).toEqual(['CollectionInitiated']);
    });

    it.each([
      ['/v1/collections/{ref}', {}, 200],
      ['/v1/collections/{ref}', { 'x-api-version': '1' }, 200],
      ['/collections/{ref}', {}, 200],
      ['/collections/{ref}', { 'x-api-version': '1' }, 200],
      ['/v1/collections/{ref}', { 'x-api-version': '2' }, 400],
      ['/collections/{ref}', { 'x-api-version': '2' }, 400],
    ])('GET %s with headers %j answers %i', async (template, headers, code) => {
      const { internal_reference } = await initialized(client, mobileMoneyRequest({ msisdn: SILENT_MTN }));
      const answer = await client.request('GET', template.replace('{ref}', internal_reference as string), { secret: true, headers });
      expectEnvelope(answer, code);
      if (code === 200) expect(answer.body.data.internal_reference).toBe(internal_reference);
    });

    it.each([
      ['/v1/collections?merchant_reference={ref}', { 'x-api-version': '1' }, 200],
      ['/collections?merchant_reference={ref}', {}, 200],
      ['/collections?merchant_reference={ref}', { 'x-api-version': '2' }, 400],
    ])('GET %s with headers %j answers %i', async (template, headers, code) => {
      const { merchant_reference } = await initialized(client, mobileMoneyRequest({ msisdn: SILENT_MTN }));
      const answer = await client.request('GET', template.replace('{ref}', encodeURIComponent(merchant_reference as string)), { secret: true, headers });
      expectEnvelope(answer, code);
    });

    it.each([
      ['/v1/payment-providers', {}, 200],
      ['/payment-providers', {}, 200],
      ['/payment-providers', { 'x-api-version': '1' }, 200],
      ['/v1/payment-providers', { 'x-api-version': '2' }, 400],
      ['/payment-providers', { 'x-api-version': '2' }, 400],
    ])('GET %s with headers %j answers %i', async (path, headers, code) => {
      expectEnvelope(await client.request('GET', path, { headers }), code);
    });
  });

  describe('request bodies', () => {
    let before: number;
    beforeAll(async () => {
      before = (await collectionEvents()).length;
    });

    it.each(['/v1/collections/initialize', '/v1/collections/confirm'])('%s: text/plain answers 415', async (path) => {
      const answer = await http('POST', path, { headers: as(client, { 'content-type': 'text/plain' }), body: JSON.stringify(mobileMoneyRequest()) });
      expectEnvelope(answer, 415);
    });

    it.each(['/v1/collections/initialize', '/v1/collections/confirm'])('%s: application/x-www-form-urlencoded answers 415', async (path) => {
      const form = new URLSearchParams(mobileMoneyRequest() as Record<string, string>).toString();
      const answer = await http('POST', path, { headers: as(client, { 'content-type': 'application/x-www-form-urlencoded' }), body: form });
      expectEnvelope(answer, 415);
    });

    it.each([
      ['application/json-patch+json', 'application/json-patch+json'],
      ['application/xml', 'application/xml'],
      ['multipart/form-data', 'multipart/form-data; boundary=x'],
    ])('a JSON text sent as %s answers 415', async (_label, type) => {
      for (const path of ['/v1/collections/initialize', '/v1/collections/confirm']) {
        const answer = await http('POST', path, { headers: as(client, { 'content-type': type }), body: JSON.stringify(mobileMoneyRequest()) });
        expectEnvelope(answer, 415);
      }
    });

    it('a body without any content-type answers 415', async () => {
      for (const path of ['/v1/collections/initialize', '/v1/collections/confirm']) {
        const answer = await http('POST', path, { headers: as(client), body: new TextEncoder().encode(JSON.stringify(mobileMoneyRequest())) });
        expectEnvelope(answer, 415);
      }
    });

    it.each(['/v1/collections/initialize', '/v1/collections/confirm'])('%s: a body over 64 KiB answers 413', async (path) => {
      const json = JSON.stringify({ ...mobileMoneyRequest(), description: 'x'.repeat(70_000) });
      expect(Buffer.byteLength(json)).toBeGreaterThan(64 * 1024);
      const answer = await http('POST', path, { headers: as(client, { 'content-type': 'application/json' }), body: json });
      expectEnvelope(answer, 413);
    });

    it('a body of exactly 64 KiB is read (and then refused for its over-long description, 400)', async () => {
      const base = JSON.stringify({ ...mobileMoneyRequest(), description: '' });
      const json = JSON.stringify({ ...mobileMoneyRequest(), description: 'x'.repeat(64 * 1024 - Buffer.byteLength(base)) });
      expect(Buffer.byteLength(json)).toBe(64 * 1024);
      const answer = await http('POST', '/v1/collections/initialize', { headers: as(client, { 'content-type': 'application/json' }), body: json });
      expectFieldErrors(answer, ['description']);
    });

    it.each([
      ['truncated', '{"merchant_reference":'],
      ['single quotes', "{'merchant_reference':'a'}"],
      ['trailing comma', '{"a":1,}'],
      ['bare word', 'hello'],
      ['empty', ''],
    ])('%s JSON answers 400', async (_label, raw) => {
      for (const path of ['/v1/collections/initialize', '/v1/collections/confirm']) {
        const answer = await http('POST', path, { headers: as(client, { 'content-type': 'application/json' }), body: raw });
        expectEnvelope(answer, 400);
      }
    });

    it.each([
      ['an array', '[]'],
      ['an array of a valid body', JSON.stringify([mobileMoneyRequest()])],
      ['a string', '"hello"'],
      ['null', 'null'],
      ['a number', '42'],
      ['true', 'true'],
    ])('a JSON body that is %s answers 400', async (_label, raw) => {
      for (const path of ['/v1/collections/initialize', '/v1/collections/confirm']) {
        const answer = await http('POST', path, { headers: as(client, { 'content-type': 'application/json' }), body: raw });
        expectEnvelope(answer, 400);
      }
    });

    it('application/json with a charset parameter is accepted', async () => {
      const answer = await client.request('POST', '/v1/collections/initialize', {
        raw: JSON.stringify(mobileMoneyRequest({ msisdn: SILENT_MTN })),
        headers: { 'content-type': 'application/json; charset=utf-8' },
      });
      expectEnvelope(answer, 202);
      before += 1;
    });

    it('media types are case-insensitive: APPLICATION/JSON is JSON (RFC 9110)', async () => {
      const answer = await client.request('POST', '/v1/collections/initialize', {
        raw: JSON.stringify(mobileMoneyRequest({ msisdn: SILENT_MTN })),
        headers: { 'content-type': 'Application/JSON' },
      });
      expectEnvelope(answer, 202);
      before += 1;
    });

    it('wrote no collection event for any refused body', async () => {
      expect((await collectionEvents()).length).toBe(before);
    });
  });

  describe('authentication', () => {
    let reference: string;
    let merchantReference: string;
    beforeAll(async () => {
      const data = await initialized(client, mobileMoneyRequest({ msisdn: SILENT_MTN }));
      reference = data.internal_reference as string;
      merchantReference = data.merchant_reference as string;
    });

    it.each([
      ['without public-key', {}],
      ['with an unknown public-key', { 'public-key': 'pk_unknown_0123456789' }],
      ['with an empty public-key', { 'public-key': '' }],
    ])('initialize, confirm, GET and payment-providers %s answer 401', async (_label, headers) => {
      const before = (await collectionEvents()).length;
      expectEnvelope(await http('POST', '/v1/collections/initialize', { headers, json: mobileMoneyRequest() }), 401);
      expectEnvelope(await http('POST', '/v1/collections/confirm', { headers, json: { internal_reference: reference } }), 401);
      expectEnvelope(await http('GET', `/v1/collections/${reference}`, { headers: { ...headers, 'secret-key': client.merchant.secretKey } }), 401);
      expectEnvelope(await http('GET', `/v1/collections?merchant_reference=${merchantReference}`, { headers: { ...headers, 'secret-key': client.merchant.secretKey } }), 401);
      expectEnvelope(await http('GET', '/v1/payment-providers', { headers }), 401);
      expect((await collectionEvents()).length).toBe(before);
    });

    it('GET without secret-key answers 401', async () => {
      expectEnvelope(await http('GET', `/v1/collections/${reference}`, { headers: as(client) }), 401);
      expectEnvelope(await http('GET', `/v1/collections?merchant_reference=${merchantReference}`, { headers: as(client) }), 401);
    });

    it.each([
      ['a wrong secret-key', () => 'sk_wrong_0123456789'],
      ['another merchant’s secret-key', () => other.merchant.secretKey],
      ['the public key as secret-key', () => client.merchant.publicKey],
    ])('GET with %s answers 401', async (_label, secret) => {
      const headers = as(client, { 'secret-key': secret() });
      expectEnvelope(await http('GET', `/v1/collections/${reference}`, { headers }), 401);
      expectEnvelope(await http('GET', `/v1/collections?merchant_reference=${merchantReference}`, { headers }), 401);
    });

    it('a suspended merchant gets 403 everywhere, and is served again once active', async () => {
      const merchant = await PaygateClient.withNewMerchant(paygate.url, TEST_ADMIN_TOKEN, 'Suspended merchant');
      const data = await initialized(merchant, mobileMoneyRequest({ msisdn: SILENT_MTN }));
      expectEnvelope(await admin('PATCH', `/${merchant.merchant.id}`, { status: 'suspended' }), 200);
      const before = (await collectionEvents()).length;
      expectEnvelope(await merchant.initialize(mobileMoneyRequest({ msisdn: SILENT_MTN })), 403);
      expectEnvelope(await merchant.confirm(data.internal_reference as string), 403);
      expectEnvelope(await merchant.collection(data.internal_reference as string), 403);
      expectEnvelope(await merchant.request('GET', '/v1/payment-providers'), 403);
      expect((await collectionEvents()).length).toBe(before);
      expectEnvelope(await admin('PATCH', `/${merchant.merchant.id}`, { status: 'active' }), 200);
      expectEnvelope(await merchant.initialize(mobileMoneyRequest({ msisdn: SILENT_MTN })), 202);
    });

    it('another merchant’s internal_reference is answered exactly like an unknown one (404)', async () => {
      const unknown = await other.collection('PG0000000000000000000000ZZ');
      const foreign = await other.collection(reference);
      expectEnvelope(unknown, 404);
      expect(foreign).toEqual(unknown);
    });

    it('another merchant’s merchant_reference is answered exactly like an unknown one (404)', async () => {
      const unknown = await other.request('GET', `/v1/collections?merchant_reference=never-used-${Date.now()}`, { secret: true });
      const foreign = await other.request('GET', `/v1/collections?merchant_reference=${encodeURIComponent(merchantReference)}`, { secret: true });
      expectEnvelope(unknown, 404);
      expect(foreign).toEqual(unknown);
    });
  });

  describe('initialize acknowledgement', () => {
    it('mobile money, charge_customer false: the merchant bears the 1.5 % fee', async () => {
      const body = mobileMoneyRequest({ msisdn: SILENT_MTN, charge_customer: false });
      const answer = await client.initialize(body);
      expectEnvelope(answer, 202);
      expect(answer.body.message).toBe('Transaction initiated. Pending customer confirmation');
      expect(Object.keys(answer.body.data).sort()).toEqual([...RECORD_FIELDS].sort());
      expect(answer.body.data).toEqual({
        id: expect.any(Number),
        merchant_reference: body.merchant_reference,
        internal_reference: expect.stringMatching(INTERNAL_REFERENCE),
        transaction_type: 'COLLECTION',
        request_currency: 'UGX',
        request_amount: 81000,
        transaction_currency: 'UGX',
        transaction_amount: 81000,
        transaction_fee: 1215,
        charge_customer: false,
        total_credit: 79785,
        provider_code: 'mtn_momo_ug',
        transaction_status: 'PENDING',
        status_message: 'Transaction initiated. Pending customer confirmation',
      });
    });

    it('mobile money, charge_customer true: the customer pays the fee on top', async () => {
      const body = mobileMoneyRequest({ msisdn: SILENT_MTN, charge_customer: true });
      const answer = await client.initialize(body);
      expectEnvelope(answer, 202);
      expect(answer.body.data).toEqual({
        id: expect.any(Number),
        merchant_reference: body.merchant_reference,
        internal_reference: expect.stringMatching(INTERNAL_REFERENCE),
        transaction_type: 'COLLECTION',
        request_currency: 'UGX',
        request_amount: 81000,
        transaction_currency: 'UGX',
        transaction_amount: 82215,
        transaction_fee: 1215,
        charge_customer: true,
        total_credit: 81000,
        provider_code: 'mtn_momo_ug',
        transaction_status: 'PENDING',
        status_message: 'Transaction initiated. Pending customer confirmation',
      });
    });

    it.each([
      // amount, charge_customer, fee, transaction_amount, total_credit
      ['mtn_momo_ug', SILENT_MTN, 8100, false, 122, 8100, 7978], // 121.5 rounds half-up
      ['mtn_momo_ug', SILENT_MTN, 8100, true, 122, 8222, 8100],
      ['mtn_momo_ug', SILENT_MTN, 5000, false, 100, 5000, 4900], // 75 raised to the minimum
      ['mtn_momo_ug', SILENT_MTN, 500, true, 100, 600, 500],
      ['mtn_momo_ug', SILENT_MTN, 5_000_000, false, 75000, 5_000_000, 4_925_000],
      ['airtel_money_ug', '256752000004', 10033, false, 150, 10033, 9883], // 150.495 rounds down
      ['airtel_money_ug', '256752000004', 2_000_000, true, 30000, 2_030_000, 2_000_000],
    ])('%s (msisdn %s) amount %i charge_customer %s: fee %i, transaction_amount %i, total_credit %i', async (provider, msisdn, amount, charge, fee, transactionAmount, totalCredit) => {
      const answer = await client.initialize(mobileMoneyRequest({ provider_code: provider, msisdn, amount, charge_customer: charge }));
      expectEnvelope(answer, 202);
      expect(answer.body.data).toMatchObject({ request_amount: amount, transaction_fee: fee, transaction_amount: transactionAmount, total_credit: totalCredit, charge_customer: charge });
      expect(answer.body.data.transaction_amount).toBe((answer.body.data.total_credit as number) + (answer.body.data.transaction_fee as number));
    });

    it.each([
      [25000, false, 875, 25000, 24125],
      [25000, true, 875, 25875, 25000],
      [1100, false, 39, 1100, 1061], // 38.5 rounds half-up
      [1010, true, 35, 1045, 1010], // 35.35 rounds down
      [10_000_000, false, 350000, 10_000_000, 9_650_000],
    ])('card amount %i charge_customer %s: fee %i, transaction_amount %i, total_credit %i', async (amount, charge, fee, transactionAmount, totalCredit) => {
      const body = cardRequest({ amount, charge_customer: charge });
      const answer = await client.initialize(body);
      expectEnvelope(answer, 202);
      expect(answer.body.message).toBe('Transaction initiated. Pending customer confirmation');
      expect(Object.keys(answer.body.data).sort()).toEqual([...RECORD_FIELDS].sort());
      expect(answer.body.data).toMatchObject({
        merchant_reference: body.merchant_reference,
        transaction_type: 'COLLECTION',
        request_currency: 'UGX',
        transaction_currency: 'UGX',
        request_amount: amount,
        transaction_fee: fee,
        transaction_amount: transactionAmount,
        total_credit: totalCredit,
        charge_customer: charge,
        provider_code: 'card_ug',
        transaction_status: 'PENDING',
      });
    });

    it('require_confirmation=false: "Pending processing" and still PENDING', async () => {
      const answer = await client.initialize(mobileMoneyRequest({ msisdn: SILENT_MTN, require_confirmation: false }));
      expectEnvelope(answer, 202);
      expect(answer.body.message).toBe('Transaction initiated. Pending processing');
      expect(answer.body.data).toMatchObject({ transaction_status: 'PENDING', status_message: expect.any(String), transaction_amount: 81000, transaction_fee: 1215, total_credit: 79785 });
      for (const field of RECORD_FIELDS) expect(answer.body.data).toHaveProperty(field);
      expect(answer.body.data).not.toHaveProperty('payment_url');
    });

    it('require_confirmation=true (explicit) gives the same message as the default', async () => {
      const answer = await client.initialize(mobileMoneyRequest({ msisdn: SILENT_MTN, require_confirmation: true }));
      expectEnvelope(answer, 202);
      expect(answer.body.message).toBe('Transaction initiated. Pending customer confirmation');
    });

    it('card with require_confirmation=false carries payment_url', async () => {
      const answer = await client.initialize(cardRequest({ require_confirmation: false }));
      expectEnvelope(answer, 202);
      expect(answer.body.message).toBe('Transaction initiated. Pending processing');
      expect(answer.body.data).toMatchObject({ transaction_status: 'PENDING', provider_code: 'card_ug', transaction_amount: 25000, transaction_fee: 875, total_credit: 24125 });
      expect(typeof answer.body.data.payment_url).toBe('string');
      expect(new URL(answer.body.data.payment_url as string).protocol).toMatch(/^https?:$/);
    });

    it('card with require_confirmation=true carries no payment_url', async () => {
      const answer = await client.initialize(cardRequest());
      expectEnvelope(answer, 202);
      expect(answer.body.data).not.toHaveProperty('payment_url');
    });

    it('merchant_reference "auto" generates MCTREF + 14 uppercase alphanumerics, a new one each time', async () => {
      const first = await initialized(client, mobileMoneyRequest({ msisdn: SILENT_MTN, merchant_reference: 'auto' }));
      const second = await initialized(client, mobileMoneyRequest({ msisdn: SILENT_MTN, merchant_reference: 'auto' }));
      expect(first.merchant_reference).toMatch(/^MCTREF[A-Z0-9]{14}$/);
      expect(second.merchant_reference).toMatch(/^MCTREF[A-Z0-9]{14}$/);
      expect(second.merchant_reference).not.toBe(first.merchant_reference);
      expect(second.internal_reference).not.toBe(first.internal_reference);
      // The generated reference finds the collection.
      const found = await client.request('GET', `/v1/collections?merchant_reference=${first.merchant_reference as string}`, { secret: true });
      expectEnvelope(found, 200);
      expect(found.body.data.internal_reference).toBe(first.internal_reference);
    });

    it('the same body again answers 202 with the identical acknowledgement and records one CollectionInitiated', async () => {
      const body = mobileMoneyRequest({ msisdn: SILENT_MTN });
      const first = await client.initialize(body);
      expectEnvelope(first, 202);
      const count = (await collectionEvents()).length;
      const again = await client.initialize(body);
      const reordered = await client.initialize(Object.fromEntries(Object.entries(body).reverse()));
      expect(again).toEqual(first);
      expect(reordered).toEqual(first);
      const stream = await paygate.infrastructure.store.readStream(`collection-${first.body.data.internal_reference as string}`);
      expect(stream.filter((event) => event.type === 'CollectionInitiated')).toHaveLength(1);
      const all = await collectionEvents();
      expect(all).toHaveLength(count);
      expect(all.filter((event) => event.type === 'CollectionInitiated' && event.data.merchantReference === body.merchant_reference)).toHaveLength(1);
    });

    it('the same body again after confirm still answers 202 with the original acknowledgement', async () => {
      const body = mobileMoneyRequest({ msisdn: SILENT_MTN });
      const first = await client.initialize(body);
      expectEnvelope(first, 202);
      expectEnvelope(await client.confirm(first.body.data.internal_reference as string), 202);
      const again = await client.initialize(body);
      expectEnvelope(again, 202);
      expect(again.body.data).toMatchObject({ id: first.body.data.id, internal_reference: first.body.data.internal_reference, merchant_reference: body.merchant_reference });
      expect(again).toEqual(first);
    });

    it('the same require_confirmation=false body again answers 202 with the same collection and asks the provider once', async () => {
      const body = mobileMoneyRequest({ msisdn: SILENT_MTN, require_confirmation: false });
      const first = await client.initialize(body);
      expectEnvelope(first, 202);
      const stream = `collection-${first.body.data.internal_reference as string}`;
      const events = await paygate.infrastructure.store.readStream(stream);
      const again = await client.initialize(body);
      expectEnvelope(again, 202);
      expect(again.body.data).toMatchObject({ id: first.body.data.id, internal_reference: first.body.data.internal_reference });
      expect(again).toEqual(first);
      expect(await paygate.infrastructure.store.readStream(stream)).toEqual(events);
    });

    it('the same body sent five times at once gives one collection and five identical acknowledgements', async () => {
      const body = mobileMoneyRequest({ msisdn: SILENT_MTN });
      const answers = await Promise.all([1, 2, 3, 4, 5].map(() => client.initialize(body)));
      for (const answer of answers) {
        expectEnvelope(answer, 202);
        expect(answer).toEqual(answers[0]);
      }
      const initiated = (await collectionEvents()).filter((event) => event.type === 'CollectionInitiated' && event.data.merchantReference === body.merchant_reference);
      expect(initiated).toHaveLength(1);
    });

    it('different bodies with one merchant_reference at once: one is accepted, the others get 409', async () => {
      const reference = uniqueReference('race');
      const answers = await Promise.all([81000, 82000, 83000, 84000].map((amount) => client.initialize(mobileMoneyRequest({ msisdn: SILENT_MTN, merchant_reference: reference, amount }))));
      expect(answers.map((answer) => answer.status).sort()).toEqual([202, 409, 409, 409]);
      for (const answer of answers) expectEnvelope(answer, answer.status);
      const initiated = (await collectionEvents()).filter((event) => event.type === 'CollectionInitiated' && event.data.merchantReference === reference);
      expect(initiated).toHaveLength(1);
    });

    it('a different body with a used merchant_reference answers 409 and writes nothing', async () => {
      const body = mobileMoneyRequest({ msisdn: SILENT_MTN });
      const first = await initialized(client, body);
      const events = await collectionEvents();
      const [{ count: reservations }] = await paygate.infrastructure.sql.query<{ count: string }>('select count(*)::text as count from collection_references');
      for (const change of [{ amount: 82000 }, { customer_name: 'John Doe' }, { charge_customer: true }, { msisdn: '256772000014' }, { description: undefined }]) {
        const answer = await client.initialize({ ...body, ...change });
        expectEnvelope(answer, 409);
      }
      expect(await collectionEvents()).toEqual(events);
      const [{ count: after }] = await paygate.infrastructure.sql.query<{ count: string }>('select count(*)::text as count from collection_references');
      expect(after).toBe(reservations);
      // The original collection is untouched and still answers.
      const found = await client.collection(first.internal_reference as string);
      expect(found.body.data).toMatchObject({ transaction_amount: 81000, customer_name: 'Jane Doe', transaction_status: 'PENDING' });
    });

    it.each([
      ['NUL in customer_name', { customer_name: 'Jane\u0000Doe' }],
      ['NUL in description', { description: 'Order\u00001001' }],
      ['a lone surrogate in customer_name', { customer_name: 'Jane \ud800' }],
    ])('%s is accepted or refused with 400, never 5xx, and a refused merchant_reference stays usable', async (_label, change) => {
      const body = mobileMoneyRequest({ msisdn: SILENT_MTN });
      const before = (await collectionEvents()).length;
      const answer = await client.initialize({ ...body, ...change });
      expectEnvelope(answer, answer.status);
      const written = (await collectionEvents()).length - before;
      // Unless it was accepted, nothing was created: the corrected request with the same reference is a first request.
      const retried = answer.status === 202 ? 202 : (await client.initialize(body)).status;
      expect({ first: [202, 400].includes(answer.status) ? '202 or 400' : answer.status, written, correctedRetry: retried }).toEqual({
        first: '202 or 400',
        written: answer.status === 202 ? 1 : 0,
        correctedRetry: 202,
      });
    });

    it('the same merchant_reference used by two merchants gives two collections', async () => {
      const reference = uniqueReference('shared');
      const mine = await initialized(client, mobileMoneyRequest({ msisdn: SILENT_MTN, merchant_reference: reference }));
      const theirs = await initialized(other, mobileMoneyRequest({ msisdn: SILENT_MTN, merchant_reference: reference, amount: 5000 }));
      expect(theirs.internal_reference).not.toBe(mine.internal_reference);
      expect(theirs.id).not.toBe(mine.id);
      const a = await client.request('GET', `/v1/collections?merchant_reference=${reference}`, { secret: true });
      const b = await other.request('GET', `/v1/collections?merchant_reference=${reference}`, { secret: true });
      expect(a.body.data).toMatchObject({ internal_reference: mine.internal_reference, request_amount: 81000 });
      expect(b.body.data).toMatchObject({ internal_reference: theirs.internal_reference, request_amount: 5000 });
    });

    it('ids are integers and internal references distinct and random (PG + 24 base32)', async () => {
      const records: Json[] = [];
      for (let i = 0; i < 8; i++) records.push(await initialized(client, mobileMoneyRequest({ msisdn: SILENT_MTN })));
      const ids = records.map((record) => record.id);
      const references = records.map((record) => record.internal_reference as string);
      for (const id of ids) expect(Number.isSafeInteger(id) && (id as number) > 0).toBe(true);
      expect(new Set(ids).size).toBe(ids.length);
      expect(new Set(references).size).toBe(references.length);
      for (const reference of references) {
        expect(reference).toMatch(INTERNAL_REFERENCE);
        expect(reference).not.toMatch(/[ILOU]/);
      }
      // Consecutive references share no structure: random characters agree in ~1 of 32 positions.
      for (let i = 1; i < references.length; i++) {
        const same = [...references[i].slice(2)].filter((char, at) => char === references[i - 1][at + 2]).length;
        expect(same).toBeLessThan(10);
      }
    });

    it('accepts the boundaries: 64-character reference, 100-character name, 255-character description, min and max amounts', async () => {
      await initialized(client, mobileMoneyRequest({ msisdn: SILENT_MTN, merchant_reference: `${uniqueReference('b')}.:/_-`.padEnd(64, 'x') }));
      await initialized(client, mobileMoneyRequest({ msisdn: SILENT_MTN, customer_name: 'N'.repeat(100), description: 'd'.repeat(255) }));
      await initialized(client, mobileMoneyRequest({ msisdn: SILENT_MTN, amount: 500 }));
      await initialized(client, mobileMoneyRequest({ msisdn: SILENT_MTN, amount: 5_000_000 }));
      await initialized(client, cardRequest({ amount: 1000, redirect_url: 'http://localhost:8080/return' }));
      const minimal = { ...mobileMoneyRequest({ msisdn: SILENT_MTN }) };
      delete minimal.customer_email;
      delete minimal.description;
      await initialized(client, minimal);
    });
  });

  describe('initialize validation: 400 with data.errors naming each bad field', () => {
    let before: RecordedEvent[];
    beforeAll(async () => {
      before = await collectionEvents();
    });

    const without = (body: Json, ...fields: string[]) => {
      const copy = { ...body };
      for (const field of fields) delete copy[field];
      return copy;
    };
    const momo = (overrides: Json = {}) => mobileMoneyRequest({ msisdn: SILENT_MTN, ...overrides });

    it.each<[string, () => Json, string[], string?]>([
      ['merchant_reference too long (65)', () => momo({ merchant_reference: 'r'.repeat(65) }), ['merchant_reference']],
      ['merchant_reference with a space and #', () => momo({ merchant_reference: 'order 1001#' }), ['merchant_reference']],
      ['merchant_reference with a non-ASCII letter', () => momo({ merchant_reference: 'ordér-1' }), ['merchant_reference']],
      ['merchant_reference empty', () => momo({ merchant_reference: '' }), ['merchant_reference']],
      ['merchant_reference missing', () => without(momo(), 'merchant_reference'), ['merchant_reference']],
      ['merchant_reference a number', () => momo({ merchant_reference: 1001 }), ['merchant_reference']],
      ['merchant_reference "auto " with a trailing space', () => momo({ merchant_reference: 'auto ' }), ['merchant_reference']],
      ['transaction_method unknown', () => momo({ transaction_method: 'BANK' }), ['transaction_method']],
      ['transaction_method lowercase', () => momo({ transaction_method: 'mobile_money' }), ['transaction_method']],
      ['transaction_method missing', () => without(momo(), 'transaction_method'), ['transaction_method']],
      ['transaction_method not the provider’s', () => cardRequest({ transaction_method: 'MOBILE_MONEY', msisdn: SILENT_MTN }), ['transaction_method']],
      ['transaction_method CARD for a mobile money provider', () => momo({ transaction_method: 'CARD', redirect_url: 'https://shop.example.com/r' }), ['transaction_method']],
      ['provider_code unknown', () => momo({ provider_code: 'mpesa_ke' }), ['provider_code']],
      ['provider_code missing', () => without(momo(), 'provider_code'), ['provider_code']],
      ['currency lowercase', () => momo({ currency: 'ugx' }), ['currency']],
      ['currency of another country', () => momo({ currency: 'KES' }), ['currency']],
      ['currency missing', () => without(momo(), 'currency'), ['currency']],
      ['amount a string', () => momo({ amount: '81000' }), ['amount']],
      ['amount 0', () => momo({ amount: 0 }), ['amount']],
      ['amount negative', () => momo({ amount: -81000 }), ['amount']],
      ['amount 100.5 UGX', () => momo({ amount: 100.5 }), ['amount']],
      ['amount 81000.5 UGX (decimals)', () => momo({ amount: 81000.5 }), ['amount']],
      ['amount below the provider minimum', () => momo({ amount: 499 }), ['amount']],
      ['amount above the provider maximum', () => momo({ amount: 5_000_001 }), ['amount']],
      ['amount above airtel’s maximum', () => momo({ provider_code: 'airtel_money_ug', msisdn: '256752000004', amount: 2_000_001 }), ['amount']],
      ['card amount below its minimum', () => cardRequest({ amount: 999 }), ['amount']],
      ['amount missing', () => without(momo(), 'amount'), ['amount']],
      ['amount null', () => momo({ amount: null }), ['amount']],
      ['amount 1e308', () => momo({ amount: 1e308 }), ['amount']],
      ['msisdn of another network', () => momo({ msisdn: '256701234567' }), ['msisdn'], 'msisdn 256701234567 is not valid for provider mtn_momo_ug'],
      ['msisdn of MTN for airtel', () => momo({ provider_code: 'airtel_money_ug', msisdn: '256772000001' }), ['msisdn'], 'msisdn 256772000001 is not valid for provider airtel_money_ug'],
      ['msisdn without country code', () => momo({ msisdn: '0772000001' }), ['msisdn']],
      ['msisdn with +', () => momo({ msisdn: '+256772000001' }), ['msisdn']],
      ['msisdn too short', () => momo({ msisdn: '25677200000' }), ['msisdn']],
      ['msisdn too long', () => momo({ msisdn: '2567720000011' }), ['msisdn']],
      ['msisdn a number', () => momo({ msisdn: 256772000001 }), ['msisdn']],
      ['msisdn missing for MOBILE_MONEY', () => without(momo(), 'msisdn'), ['msisdn']],
      ['customer_name missing', () => without(momo(), 'customer_name'), ['customer_name']],
      ['customer_name 101 characters', () => momo({ customer_name: 'N'.repeat(101) }), ['customer_name']],
      ['customer_name blank', () => momo({ customer_name: '   ' }), ['customer_name']],
      ['customer_name a number', () => momo({ customer_name: 42 }), ['customer_name']],
      ['customer_email invalid', () => momo({ customer_email: 'jane.example.com' }), ['customer_email']],
      ['customer_email a number', () => momo({ customer_email: 7 }), ['customer_email']],
      ['description 256 characters', () => momo({ description: 'd'.repeat(256) }), ['description']],
      ['description an object', () => momo({ description: { text: 'x' } }), ['description']],
      ['charge_customer "true"', () => momo({ charge_customer: 'true' }), ['charge_customer']],
      ['charge_customer 1', () => momo({ charge_customer: 1 }), ['charge_customer']],
      ['require_confirmation "false"', () => momo({ require_confirmation: 'false' }), ['require_confirmation']],
      ['require_confirmation 0', () => momo({ require_confirmation: 0 }), ['require_confirmation']],
      ['redirect_url missing for CARD', () => without(cardRequest(), 'redirect_url'), ['redirect_url']],
      ['redirect_url ftp', () => cardRequest({ redirect_url: 'ftp://shop.example.com/paid' }), ['redirect_url']],
      ['redirect_url relative', () => cardRequest({ redirect_url: '/paid?order=7' }), ['redirect_url']],
      ['redirect_url without scheme', () => cardRequest({ redirect_url: 'shop.example.com/paid' }), ['redirect_url']],
      ['redirect_url javascript:', () => cardRequest({ redirect_url: 'javascript:alert(1)' }), ['redirect_url']],
      ['an unknown field', () => momo({ callback_url: 'https://shop.example.com/cb' }), ['callback_url']],
      ['a misspelt optional field', () => momo({ charge_costumer: true }), ['charge_costumer']],
      ['an unknown field named constructor', () => momo({ constructor: {} }), ['constructor']],
      ['an unknown field named toString', () => momo({ toString: 'x' }), ['toString']],
      ['an unknown field named hasOwnProperty', () => momo({ hasOwnProperty: 1 }), ['hasOwnProperty']],
    ])('%s', async (...row) => {
      // Rows have 3 or 4 entries: a rest parameter keeps jest from passing `done` as the message.
      const [, body, fields, message] = row;
      const answer = await client.initialize(body());
      expectFieldErrors(answer, fields, message);
    });

    it('names every bad field of a request with several', async () => {
      const body = without(momo({ merchant_reference: '', currency: 'ugx', amount: '81000', customer_email: 'nope', charge_customer: 'yes', extra: 1 }), 'customer_name');
      const answer = await client.initialize(body);
      expectFieldErrors(answer, ['merchant_reference', 'currency', 'amount', 'customer_email', 'charge_customer', 'extra', 'customer_name']);
    });

    it('names catalogue errors together: method, currency, amount and msisdn', async () => {
      const answer = await client.initialize(momo({ provider_code: 'airtel_money_ug', transaction_method: 'CARD', redirect_url: 'https://shop.example.com/r', currency: 'KES', amount: 3_000_000, msisdn: '256772000001' }));
      expectFieldErrors(answer, ['transaction_method', 'currency', 'amount']);
    });

    it('an empty object names every required field', async () => {
      const answer = await client.initialize({});
      expectFieldErrors(answer, ['merchant_reference', 'transaction_method', 'provider_code', 'currency', 'amount', 'customer_name']);
    });

    it('wrote no collection event for any of them', async () => {
      expect(await collectionEvents()).toEqual(before);
    });
  });

  describe('confirm', () => {
    it('mobile money: 202 with the prompt message (transaction_amount) and data {}', async () => {
      const { internal_reference } = await initialized(client, mobileMoneyRequest({ msisdn: SILENT_MTN, charge_customer: true }));
      const answer = await client.confirm(internal_reference as string);
      expectEnvelope(answer, 202);
      expect(answer.body).toEqual({ code: 202, status: 'accepted', message: 'You will receive a prompt to pay UGX 82,215 on your mobile. Enter PIN to approve payment', data: {} });
    });

    it('card: 202 with the redirect message and data.payment_url', async () => {
      const { internal_reference } = await initialized(client, cardRequest());
      const answer = await client.confirm(internal_reference as string);
      expectEnvelope(answer, 202);
      expect(answer.body.message).toBe('Redirect to URL for the payment of UGX 25,000');
      expect(Object.keys(answer.body.data)).toEqual(['payment_url']);
      expect(new URL(answer.body.data.payment_url as string).protocol).toMatch(/^https?:$/);
      const again = await client.confirm(internal_reference as string);
      expect(again).toEqual(answer);
    });

    it('an unknown internal_reference answers 404 and another merchant’s exactly the same', async () => {
      const { internal_reference } = await initialized(client, mobileMoneyRequest({ msisdn: SILENT_MTN }));
      const before = await paygate.infrastructure.store.readStream(`collection-${internal_reference as string}`);
      const unknown = await other.confirm('PG0000000000000000000000ZZ');
      const foreign = await other.confirm(internal_reference as string);
      expectEnvelope(unknown, 404);
      expect(foreign).toEqual(unknown);
      expect(await paygate.infrastructure.store.readStream(`collection-${internal_reference as string}`)).toEqual(before);
    });

    it('mobile money confirmed again while the prompt is open: the same acknowledgement, no second prompt', async () => {
      const { internal_reference } = await initialized(client, mobileMoneyRequest({ msisdn: SILENT_MTN }));
      const first = await client.confirm(internal_reference as string);
      expectEnvelope(first, 202);
      const events = await paygate.infrastructure.store.readStream(`collection-${internal_reference as string}`);
      const again = await client.confirm(internal_reference as string);
      expect(again).toEqual(first);
      expect(await paygate.infrastructure.store.readStream(`collection-${internal_reference as string}`)).toEqual(events);
    });

    it.each([
      ['mobile money', () => mobileMoneyRequest({ msisdn: SILENT_MTN, require_confirmation: false })],
      ['card', () => cardRequest({ require_confirmation: false })],
    ])('%s with require_confirmation=false answers 409 (and 404 to another merchant)', async (_label, body) => {
      const { internal_reference } = await initialized(client, body());
      const answer = await client.confirm(internal_reference as string);
      expectEnvelope(answer, 409);
      const unknown = await other.confirm('PG0000000000000000000000ZZ');
      expect(await other.confirm(internal_reference as string)).toEqual(unknown);
    });

    it('a collection already final answers 409', async () => {
      const { internal_reference } = await initialized(client, mobileMoneyRequest({ msisdn: '256772000002' }));
      expectEnvelope(await client.confirm(internal_reference as string), 202);
      expect(await client.finalState(internal_reference as string)).toMatchObject({ transaction_status: 'FAILED' });
      expectEnvelope(await client.confirm(internal_reference as string), 409);
    });

    it.each<[string, Json]>([
      ['missing internal_reference', {}],
      ['internal_reference a number', { internal_reference: 12 }],
      ['internal_reference empty', { internal_reference: '' }],
      ['internal_reference null', { internal_reference: null }],
    ])('%s answers 400 naming internal_reference', async (_label, body) => {
      const answer = await client.request('POST', '/v1/collections/confirm', { body });
      expectFieldErrors(answer, ['internal_reference']);
    });

    it.each(['pin', 'constructor', 'valueOf'])('an unknown field %s next to internal_reference answers 400 and confirms nothing', async (field) => {
      const { internal_reference } = await initialized(client, mobileMoneyRequest({ msisdn: SILENT_MTN }));
      const answer = await client.request('POST', '/v1/collections/confirm', { body: { internal_reference, [field]: '1234' } });
      expectFieldErrors(answer, [field]);
      const events = await paygate.infrastructure.store.readStream(`collection-${internal_reference as string}`);
      expect(events.map((event) => event.type)).toEqual(['CollectionInitiated']);
    });

    it.each(['\u0000', 'PG\u0000', '\ud800'])('an internal_reference %j the store cannot hold answers 404 like any unknown one', async (reference) => {
      const unknown = await client.confirm('PG0000000000000000000000ZZ');
      const answer = await client.confirm(reference);
      expect(answer).toEqual(unknown);
    });
  });

  describe('transaction record', () => {
    let body: Json;
    let ack: Json;
    beforeAll(async () => {
      body = mobileMoneyRequest({ msisdn: SILENT_MTN, customer_name: 'Grace Namutebi' });
      ack = await initialized(client, body);
    });

    const expectRecord = (data: Json) => {
      expect(data).toMatchObject({
        id: ack.id,
        merchant_reference: body.merchant_reference,
        internal_reference: ack.internal_reference,
        transaction_type: 'COLLECTION',
        request_currency: 'UGX',
        request_amount: 81000,
        transaction_currency: 'UGX',
        transaction_amount: 81000,
        transaction_fee: 1215,
        charge_customer: false,
        total_credit: 79785,
        provider_code: 'mtn_momo_ug',
        transaction_status: 'PENDING',
        status_message: expect.any(String),
        transaction_method: 'MOBILE_MONEY',
        customer_name: 'Grace Namutebi',
        created_at: expect.stringMatching(ISO_TIME),
        updated_at: expect.stringMatching(ISO_TIME),
      });
    };

    it('GET /v1/collections/{internal_reference} returns the record', async () => {
      const answer = await client.collection(ack.internal_reference as string);
      expectEnvelope(answer, 200);
      expectRecord(answer.body.data);
    });

    it('GET /v1/collections?merchant_reference= returns the same record', async () => {
      const byInternal = await client.collection(ack.internal_reference as string);
      const answer = await client.request('GET', `/v1/collections?merchant_reference=${encodeURIComponent(body.merchant_reference as string)}`, { secret: true });
      expectEnvelope(answer, 200);
      expectRecord(answer.body.data);
      expect(answer.body.data).toEqual(byInternal.body.data);
    });

    it('a reference with URL-special characters is found by merchant_reference', async () => {
      const reference = `a/b:c.d_e-${Date.now()}`;
      const data = await initialized(client, mobileMoneyRequest({ msisdn: SILENT_MTN, merchant_reference: reference }));
      const answer = await client.request('GET', `/v1/collections?merchant_reference=${encodeURIComponent(reference)}`, { secret: true });
      expectEnvelope(answer, 200);
      expect(answer.body.data.internal_reference).toBe(data.internal_reference);
    });

    it.each(['/v1/collections', '/v1/collections?merchant_reference=', '/v1/collections?other=1'])('GET %s answers 400 naming merchant_reference', async (path) => {
      expectFieldErrors(await client.request('GET', path, { secret: true }), ['merchant_reference']);
    });

    it('an unknown internal_reference or merchant_reference answers 404', async () => {
      expectEnvelope(await client.collection('PG0000000000000000000000ZZ'), 404);
      expectEnvelope(await client.request('GET', '/v1/collections?merchant_reference=nobody-used-this', { secret: true }), 404);
    });

    it.each(['%00', 'PG%00'])('GET with %s (a reference the store cannot hold) answers 404 like any unknown one', async (encoded) => {
      const unknown = await client.collection('PG0000000000000000000000ZZ');
      expect(await client.request('GET', `/v1/collections/${encoded}`, { secret: true })).toEqual(unknown);
      const unknownByReference = await client.request('GET', '/v1/collections?merchant_reference=nobody-used-this', { secret: true });
      expect(await client.request('GET', `/v1/collections?merchant_reference=${encoded}`, { secret: true })).toEqual(unknownByReference);
    });

    it.each(['/v1/collections/%ED%A0%80', '/v1/collections?merchant_reference=%ED%A0%80', '/v1/collections/%E0%A4%A'])('GET %s (not UTF-8) answers 4xx in the envelope', async (path) => {
      const answer = await http('GET', path, { headers: withSecret(client) });
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
      expectEnvelope(answer, answer.status);
    });

    it('an over-long internal_reference in the path answers 4xx in the envelope', async () => {
      const answer = await http('GET', `/v1/collections/PG${'0'.repeat(200)}`, { headers: withSecret(client) });
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
      expectEnvelope(answer, answer.status);
    });
  });

  describe('payment providers', () => {
    it('lists the three providers with the fields of DESIGN §2', async () => {
      const answer = await client.request<{ payment_providers: Json[] }>('GET', '/v1/payment-providers');
      expectEnvelope(answer, 200);
      const providers = answer.body.data.payment_providers;
      expect(providers.map((provider) => provider.provider_code).sort()).toEqual(['airtel_money_ug', 'card_ug', 'mtn_momo_ug']);
      const byCode = Object.fromEntries(providers.map((provider) => [provider.provider_code, provider]));
      expect(byCode.mtn_momo_ug).toMatchObject({
        provider_name: 'MTN Mobile Money Uganda',
        transaction_method: 'MOBILE_MONEY',
        transaction_currency: 'UGX',
        country_code: 'UG',
        min_amount: 500,
        max_amount: 5_000_000,
      });
      expect(byCode.airtel_money_ug).toMatchObject({ transaction_method: 'MOBILE_MONEY', transaction_currency: 'UGX', country_code: 'UG', min_amount: 500, max_amount: 2_000_000 });
      expect(byCode.card_ug).toMatchObject({ transaction_method: 'CARD', transaction_currency: 'UGX', country_code: 'UG', min_amount: 1000, max_amount: 10_000_000 });
      for (const provider of providers) {
        for (const field of ['provider_code', 'provider_name', 'transaction_method', 'transaction_currency', 'country_code', 'min_amount', 'max_amount', 'prefixes']) {
          expect(provider).toHaveProperty(field);
        }
        expect(Array.isArray(provider.prefixes)).toBe(true);
      }
      // Network prefixes, shown with or without the calling code.
      const networkPrefixes = (provider: Json) => (provider.prefixes as string[]).map((prefix) => prefix.replace(/^256/, '')).sort();
      expect(networkPrefixes(byCode.mtn_momo_ug)).toEqual(['76', '77', '78', '79']);
      expect(networkPrefixes(byCode.airtel_money_ug)).toEqual(['70', '74', '75']);
      expect(byCode.card_ug.prefixes).toEqual([]);
    });

    it.each([
      ['?currency=UGX', 3],
      ['?currency=UGX&transaction_type=COLLECTION', 3],
      ['?transaction_type=COLLECTION', 3],
      ['?currency=KES', 0],
    ])('%s lists %i providers', async (query, count) => {
      const answer = await client.request<{ payment_providers: Json[] }>('GET', `/v1/payment-providers${query}`);
      expectEnvelope(answer, 200);
      expect(answer.body.data.payment_providers).toHaveLength(count);
    });

    it.each([
      ['?currency=ugx', 'currency'],
      ['?currency=UG', 'currency'],
      ['?transaction_type=PAYOUT', 'transaction_type'],
      ['?transaction_type=collection', 'transaction_type'],
    ])('%s answers 400 naming %s', async (query, field) => {
      expectFieldErrors(await client.request('GET', `/v1/payment-providers${query}`), [field]);
    });
  });

  describe('admin API', () => {
    it.each([
      ['no authorization', undefined],
      ['a wrong bearer token', 'Bearer wrong-token-0123456789'],
      ['the admin token without Bearer', TEST_ADMIN_TOKEN],
      ['Basic auth', `Basic ${Buffer.from(`admin:${TEST_ADMIN_TOKEN}`).toString('base64')}`],
      ['a merchant public key', 'Bearer pk'],
    ])('%s answers 401 on every admin endpoint', async (_label, authorization) => {
      const headers: Record<string, string> = authorization ? { authorization } : {};
      if (authorization === 'Bearer pk') headers.authorization = `Bearer ${client.merchant.publicKey}`;
      const id = client.merchant.id;
      expectEnvelope(await http('POST', '/admin/v1/merchants', { headers, json: { name: 'Intruder' } }), 401);
      expectEnvelope(await http('GET', `/admin/v1/merchants/${id}`, { headers }), 401);
      expectEnvelope(await http('PATCH', `/admin/v1/merchants/${id}`, { headers, json: { status: 'suspended' } }), 401);
      expectEnvelope(await http('POST', `/admin/v1/merchants/${id}/keys`, { headers, json: { keys: ['api'] } }), 401);
      // Nothing changed.
      expectEnvelope(await client.initialize(mobileMoneyRequest({ msisdn: SILENT_MTN })), 202);
    });

    it('creates a merchant (201) showing its keys once; GET never shows secrets', async () => {
      const created = await admin('POST', '', {
        name: 'Kampala Books',
        collection_callback_url: 'https://books.example.com/cb/collections',
        service_payments_callback_url: 'https://books.example.com/cb/payments',
      });
      expectEnvelope(created, 201);
      const data = created.body.data;
      expect(data).toMatchObject({
        id: expect.any(String),
        name: 'Kampala Books',
        public_key: expect.any(String),
        secret_key: expect.any(String),
        signing_key: expect.any(String),
        collection_callback_url: 'https://books.example.com/cb/collections',
        service_payments_callback_url: 'https://books.example.com/cb/payments',
      });
      expect(data.signing_key).toMatch(/^[A-Za-z0-9]+$/);
      expect(new Set([data.public_key, data.secret_key, data.signing_key]).size).toBe(3);
      const fetched = await admin('GET', `/${data.id as string}`);
      expectEnvelope(fetched, 200);
      expect(fetched.body.data).toMatchObject({ id: data.id, name: 'Kampala Books', public_key: data.public_key, collection_callback_url: 'https://books.example.com/cb/collections' });
      expect(fetched.body.data).not.toHaveProperty('secret_key');
      expect(fetched.body.data).not.toHaveProperty('signing_key');
      expect(fetched.text).not.toContain(data.secret_key as string);
      expect(fetched.text).not.toContain(data.signing_key as string);
      // The keys work.
      const merchant = new PaygateClient(paygate.url, { id: data.id as string, publicKey: data.public_key as string, secretKey: data.secret_key as string, signingKey: data.signing_key as string });
      const ack = await initialized(merchant, mobileMoneyRequest({ msisdn: SILENT_MTN }));
      expectEnvelope(await merchant.collection(ack.internal_reference as string), 200);
    });

    it.each<[string, Json, string]>([
      ['no name', {}, 'name'],
      ['an empty name', { name: '' }, 'name'],
      ['a blank name', { name: '   ' }, 'name'],
      ['a 101-character name', { name: 'n'.repeat(101) }, 'name'],
      ['a callback URL that is not http(s)', { name: 'M', collection_callback_url: 'ftp://x.example.com' }, 'collection_callback_url'],
      ['a relative callback URL', { name: 'M', service_payments_callback_url: '/cb' }, 'service_payments_callback_url'],
      ['an unknown field', { name: 'M', secret_key: 'mine' }, 'secret_key'],
    ])('create with %s answers 400', async (_label, body, field) => {
      expectFieldErrors(await admin('POST', '', body), [field]);
    });

    it('PATCH changes callback URLs and status', async () => {
      const merchant = await PaygateClient.withNewMerchant(paygate.url, TEST_ADMIN_TOKEN, 'Patched merchant');
      const patched = await admin('PATCH', `/${merchant.merchant.id}`, { collection_callback_url: 'https://patched.example.com/c', service_payments_callback_url: 'http://patched.example.com/p' });
      expectEnvelope(patched, 200);
      expect(patched.body.data).toMatchObject({ collection_callback_url: 'https://patched.example.com/c', service_payments_callback_url: 'http://patched.example.com/p', status: 'active' });
      expect(patched.body.data).not.toHaveProperty('secret_key');
      const cleared = await admin('PATCH', `/${merchant.merchant.id}`, { collection_callback_url: null });
      expect(cleared.body.data).toMatchObject({ collection_callback_url: null, service_payments_callback_url: 'http://patched.example.com/p' });
      const suspended = await admin('PATCH', `/${merchant.merchant.id}`, { status: 'suspended' });
      expect(suspended.body.data).toMatchObject({ status: 'suspended' });
      expect((await admin('GET', `/${merchant.merchant.id}`)).body.data).toMatchObject({ status: 'suspended', service_payments_callback_url: 'http://patched.example.com/p' });
      expectEnvelope(await merchant.initialize(mobileMoneyRequest({ msisdn: SILENT_MTN })), 403);
    });

    it.each<[string, Json, string]>([
      ['a bad collection URL', { collection_callback_url: 'not a url' }, 'collection_callback_url'],
      ['a javascript: URL', { service_payments_callback_url: 'javascript:alert(1)' }, 'service_payments_callback_url'],
      ['an unknown status', { status: 'closed' }, 'status'],
      ['an unknown field', { name: 'Renamed', public_key: 'mine' }, 'public_key'],
    ])('PATCH with %s answers 400 and changes nothing', async (_label, body, field) => {
      const before = await admin('GET', `/${other.merchant.id}`);
      expectFieldErrors(await admin('PATCH', `/${other.merchant.id}`, body), [field]);
      expect(await admin('GET', `/${other.merchant.id}`)).toEqual(before);
    });

    it('POST keys {"keys":["api"]}: the old public key answers 401, the new keys work, the signing key stays', async () => {
      const merchant = await PaygateClient.withNewMerchant(paygate.url, TEST_ADMIN_TOKEN, 'Rotating merchant');
      const ack = await initialized(merchant, mobileMoneyRequest({ msisdn: SILENT_MTN }));
      const issued = await admin('POST', `/${merchant.merchant.id}/keys`, { keys: ['api'] });
      expectEnvelope(issued, 201);
      const keys = issued.body.data;
      expect(keys.public_key).not.toBe(merchant.merchant.publicKey);
      expect(keys.secret_key).not.toBe(merchant.merchant.secretKey);
      expect(keys.signing_key).toBe(merchant.merchant.signingKey);
      expectEnvelope(await merchant.initialize(mobileMoneyRequest({ msisdn: SILENT_MTN })), 401);
      expectEnvelope(await merchant.collection(ack.internal_reference as string), 401);
      const rotated = new PaygateClient(paygate.url, { id: merchant.merchant.id, publicKey: keys.public_key as string, secretKey: keys.secret_key as string, signingKey: keys.signing_key as string });
      expectEnvelope(await rotated.initialize(mobileMoneyRequest({ msisdn: SILENT_MTN })), 202);
      const found = await rotated.collection(ack.internal_reference as string);
      expectEnvelope(found, 200);
      // The old secret with the new public key is refused too.
      const mixed = await http('GET', `/v1/collections/${ack.internal_reference as string}`, { headers: { 'public-key': keys.public_key as string, 'secret-key': merchant.merchant.secretKey } });
      expectEnvelope(mixed, 401);
    });

    it('POST keys {"keys":["signing"]} changes the signing key only', async () => {
      const merchant = await PaygateClient.withNewMerchant(paygate.url, TEST_ADMIN_TOKEN, 'Signing merchant');
      const issued = await admin('POST', `/${merchant.merchant.id}/keys`, { keys: ['signing'] });
      expectEnvelope(issued, 201);
      expect(issued.body.data).toMatchObject({ public_key: merchant.merchant.publicKey, secret_key: merchant.merchant.secretKey });
      expect(issued.body.data.signing_key).toEqual(expect.any(String));
      expect(issued.body.data.signing_key).not.toBe(merchant.merchant.signingKey);
      const ack = await initialized(merchant, mobileMoneyRequest({ msisdn: SILENT_MTN }));
      expectEnvelope(await merchant.collection(ack.internal_reference as string), 200);
    });

    it('POST keys {"keys":["api","signing"]} changes all three', async () => {
      const merchant = await PaygateClient.withNewMerchant(paygate.url, TEST_ADMIN_TOKEN, 'All keys merchant');
      const issued = await admin('POST', `/${merchant.merchant.id}/keys`, { keys: ['api', 'signing'] });
      expectEnvelope(issued, 201);
      expect(issued.body.data.public_key).not.toBe(merchant.merchant.publicKey);
      expect(issued.body.data.secret_key).not.toBe(merchant.merchant.secretKey);
      expect(issued.body.data.signing_key).not.toBe(merchant.merchant.signingKey);
    });

    it('an unknown merchant answers 404 on GET, PATCH and keys', async () => {
      expectEnvelope(await admin('GET', '/mer_doesnotexist0000'), 404);
      expectEnvelope(await admin('PATCH', '/mer_doesnotexist0000', { status: 'suspended' }), 404);
      expectEnvelope(await admin('POST', '/mer_doesnotexist0000/keys', { keys: ['api'] }), 404);
    });

    it.each<[string, unknown]>([
      ['no keys field', {}],
      ['an empty list', { keys: [] }],
      ['an unknown kind', { keys: ['master'] }],
      ['a string instead of a list', { keys: 'api' }],
      ['a list with a number', { keys: ['api', 1] }],
      ['null', { keys: null }],
    ])('POST keys with %s answers 400 and changes nothing', async (_label, body) => {
      const merchant = await PaygateClient.withNewMerchant(paygate.url, TEST_ADMIN_TOKEN, 'Bad keys merchant');
      const answer = await admin('POST', `/${merchant.merchant.id}/keys`, body);
      expectFieldErrors(answer, ['keys']);
      expectEnvelope(await merchant.initialize(mobileMoneyRequest({ msisdn: SILENT_MTN })), 202);
    });
  });

  describe('secrets at rest', () => {
    it('keeps secret and signing keys out of every table column and every event', async () => {
      const created = await admin('POST', '', { name: 'Secretive merchant', collection_callback_url: 'https://secretive.example.com/cb' });
      expectEnvelope(created, 201);
      const { id, public_key, secret_key, signing_key } = created.body.data as Record<string, string>;
      const merchant = new PaygateClient(paygate.url, { id, publicKey: public_key, secretKey: secret_key, signingKey: signing_key });
      const momo = await initialized(merchant, mobileMoneyRequest({ msisdn: SILENT_MTN }));
      expectEnvelope(await merchant.confirm(momo.internal_reference as string), 202);
      const card = await initialized(merchant, cardRequest({ require_confirmation: false }));
      expectEnvelope(await merchant.collection(card.internal_reference as string), 200);
      // Rotate the signing key too: neither the old nor the new one may be stored in clear.
      const rotated = await admin('POST', `/${id}/keys`, { keys: ['signing'] });
      const secrets = [secret_key, signing_key, rotated.body.data.signing_key as string];

      const rows = await paygate.infrastructure.sql.query<Record<string, unknown>>('select * from merchants where id = $1', [id]);
      expect(rows).toHaveLength(1);
      for (const [column, value] of Object.entries(rows[0])) {
        for (const secret of secrets) expect({ column, leaks: String(value).includes(secret) }).toEqual({ column, leaks: false });
      }

      const tables = await paygate.infrastructure.sql.query<{ table_schema: string; table_name: string }>(
        "select table_schema, table_name from information_schema.tables where table_schema not in ('pg_catalog', 'information_schema') and table_type = 'BASE TABLE'",
      );
      expect(tables.length).toBeGreaterThan(1);
      for (const { table_schema, table_name } of tables) {
        const dump = await paygate.infrastructure.sql.query<{ row: string }>(`select t::text as row from "${table_schema}"."${table_name}" t`);
        for (const { row } of dump) for (const secret of secrets) expect({ table_name, leaks: row.includes(secret) }).toEqual({ table_name, leaks: false });
      }

      const events = await paygate.infrastructure.store.readAll({ maxCount: 1_000_000 });
      const collectionStreams = events.filter((event) => event.streamName.startsWith('collection-'));
      expect(collectionStreams.some((event) => event.streamName === `collection-${momo.internal_reference as string}`)).toBe(true);
      for (const event of events) {
        const text = JSON.stringify({ data: event.data, metadata: event.metadata });
        for (const secret of secrets) expect({ stream: event.streamName, type: event.type, leaks: text.includes(secret) }).toEqual({ stream: event.streamName, type: event.type, leaks: false });
      }
    });
  });

  describe('OpenAPI', () => {
    it('GET /openapi.json documents the collection, callback and admin endpoints and the initialize DTO', async () => {
      const answer = await http('GET', '/openapi.json');
      expect(answer.status).toBe(200);
      const document = JSON.parse(answer.text) as { openapi: string; paths: Record<string, Json>; components: { schemas: Record<string, { properties: Json; required?: string[] }> } };
      expect(document.openapi).toMatch(/^3\./);
      for (const path of ['/v1/collections/initialize', '/v1/collections/confirm', '/v1/payment-providers', '/v1/callbacks/resend', '/admin/v1/deliveries', '/admin/v1/deliveries/retry', '/admin/v1/merchants']) expect(Object.keys(document.paths)).toContain(path);
      expect(document.paths['/v1/collections/initialize']).toHaveProperty('post');
      expect(document.paths['/v1/collections/confirm']).toHaveProperty('post');
      expect(document.paths['/v1/payment-providers']).toHaveProperty('get');
      const dto = document.components.schemas.InitializeCollectionDto;
      expect(dto).toBeDefined();
      expect(Object.keys(dto.properties).sort()).toEqual(
        [
          'merchant_reference',
          'transaction_method',
          'provider_code',
          'currency',
          'amount',
          'msisdn',
          'customer_name',
          'customer_email',
          'description',
          'charge_customer',
          'require_confirmation',
          'redirect_url',
        ].sort(),
      );
      expect(dto.required).toEqual(expect.arrayContaining(['merchant_reference', 'transaction_method', 'provider_code', 'currency', 'amount', 'customer_name']));
    });

    it('GET /docs answers 200 HTML', async () => {
      const answer = await http('GET', '/docs');
      expect(answer.status).toBe(200);
      expect(answer.contentType).toMatch(/text\/html/);
      expect(answer.text).toMatch(/<html/i);
    });
  });
});
