import { randomUUID } from 'node:crypto';
import { eventually } from '@paygate/testing';
import { SANDBOX_ADMIN_TOKEN, startSandbox, type SandboxHarness } from './sandbox-harness';

/** The sandbox biller's own rules, over HTTP: its API, its admin routes, fault injection and what it keeps. */

const API_KEY = 'sandbox-biller-key';
const SEEDED = {
  prn: '2250000001301',
  amount: 25000,
  currency: 'UGX',
  status: 'AVAILABLE',
  expires_at: '2099-12-31T23:59:59.000Z',
  payer_name: 'Nakato Sarah',
  service_name: 'URA - Domestic Tax',
};

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

describe('sandbox biller', () => {
  let sandbox: SandboxHarness;

  beforeAll(async () => {
    sandbox = await startSandbox('sandbox-biller-test');
  });

  afterAll(async () => {
    await sandbox?.close();
  });

  /** A call to the biller API, with the sandbox's API key unless `headers` says otherwise. */
  async function biller(
    method: string,
    path: string,
    options: { headers?: Record<string, string>; body?: unknown; signal?: AbortSignal } = {},
  ): Promise<Answer> {
    const response = await fetch(`${sandbox.url}/sandbox/biller/v1${path}`, {
      method,
      headers: {
        'x-api-key': API_KEY,
        ...(options.body !== undefined && { 'content-type': 'application/json' }),
        ...options.headers,
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
    });
    return {
      status: response.status,
      headers: response.headers,
      body: (await response.json()) as Record<string, unknown>,
    };
  }

  const pay = (
    prn: string,
    key: string | undefined,
    body: unknown = { amount: 25000, currency: 'UGX', reference: 'PGREF' },
    signal?: AbortSignal,
  ) =>
    biller('POST', `/prns/${prn}/payments`, {
      headers: key === undefined ? {} : { 'idempotency-key': key },
      body,
      signal,
    });

  async function createPrn(fields: Record<string, unknown> = {}): Promise<string> {
    const { status, body } = await sandbox.admin('POST', '/sandbox/v1/prns', {
      amount: 25000,
      currency: 'UGX',
      ...fields,
    });
    expect(status).toBe(201);
    return body.data.prn as string;
  }

  const adminPrn = async (prn: string) => (await sandbox.admin('GET', `/sandbox/v1/prns/${prn}`)).body.data;
  const setFaults = (faults: Record<string, unknown>) => sandbox.admin('PUT', '/sandbox/v1/biller/faults', faults);

  afterEach(async () => {
    await setFaults({});
  });

  describe('the biller API', () => {
    it('has the seeded PRN from the start: AVAILABLE, UGX 25,000 for URA domestic tax', async () => {
      expect(await biller('GET', `/prns/${SEEDED.prn}`)).toMatchObject({ status: 200, body: SEEDED });
    });

    it('refuses every route without the API key it issued, counting no call', async () => {
      for (const headers of [
        { 'x-api-key': '' },
        { 'x-api-key': `${API_KEY}-but-longer` },
        { 'x-api-key': '', authorization: `Bearer ${API_KEY}` },
      ] as Record<string, string>[]) {
        const answers = [
          await biller('GET', `/prns/${SEEDED.prn}`, { headers }),
          await biller('POST', `/prns/${SEEDED.prn}/payments`, {
            headers: { ...headers, 'idempotency-key': 'k' },
            body: { amount: 25000, currency: 'UGX', reference: 'r' },
          }),
          await biller('GET', '/payments/k', { headers }),
        ];
        for (const answer of answers)
          expect(answer).toMatchObject({
            status: 401,
            body: { error: { code: 'UNAUTHORIZED', message: 'a valid X-Api-Key is required' } },
          });
      }
      expect(await adminPrn(SEEDED.prn)).toMatchObject({ status: 'AVAILABLE', payment_calls: 0 });
    });

    it('answers an unknown PRN and an unknown payment 404 with its own codes', async () => {
      expect(await biller('GET', '/prns/0000000000000')).toMatchObject({
        status: 404,
        body: { error: { code: 'PRN_NOT_FOUND' } },
      });
      expect(await pay('0000000000000', 'k-unknown')).toMatchObject({
        status: 404,
        body: { error: { code: 'PRN_NOT_FOUND' } },
      });
      expect(await biller('GET', `/payments/${randomUUID()}`)).toMatchObject({
        status: 404,
        body: { error: { code: 'PAYMENT_NOT_FOUND' } },
      });
    });

    it('names the bad part of a payment request, and counts the call', async () => {
      const prn = await createPrn();
      expect(await pay(prn, undefined)).toMatchObject({
        status: 400,
        body: { error: { code: 'INVALID_IDEMPOTENCY_KEY', field: 'Idempotency-Key' } },
      });
      expect(await pay(prn, 'two words')).toMatchObject({
        status: 400,
        body: { error: { code: 'INVALID_IDEMPOTENCY_KEY' } },
      });
      const key = randomUUID();
      for (const [body, field] of [
        [[], 'body'],
        [{ currency: 'UGX', reference: 'r' }, 'amount'],
        [{ amount: '25000', currency: 'UGX', reference: 'r' }, 'amount'],
        [{ amount: -1, currency: 'UGX', reference: 'r' }, 'amount'],
        [{ amount: 25000, currency: 'ugx', reference: 'r' }, 'currency'],
        [{ amount: 25000, currency: 'UGX' }, 'reference'],
        [{ amount: 25000, currency: 'UGX', reference: 'r'.repeat(101) }, 'reference'],
      ] as const) {
        expect(await pay(prn, key, body)).toMatchObject({
          status: 400,
          body: { error: { code: 'INVALID_REQUEST', field } },
        });
      }
      expect(await pay(prn, key, { amount: 25000.5, currency: 'UGX', reference: 'r' })).toMatchObject({
        status: 422,
        body: { error: { code: 'AMOUNT_MISMATCH', field: 'amount' } },
      });
      expect(await adminPrn(prn)).toMatchObject({ status: 'AVAILABLE', payment_calls: 10, payments: [] });
    });

    it('pays once per key: a replay answers the same 201 body, marked as replayed', async () => {
      const prn = await createPrn();
      const key = randomUUID();
      const first = await pay(prn, key);
      expect(first).toMatchObject({
        status: 201,
        body: { idempotency_key: key, prn, amount: 25000, currency: 'UGX', reference: 'PGREF', status: 'COMPLETED' },
      });
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const replay = await pay(prn, key);
      expect(replay.status).toBe(201);
      expect(replay.body).toEqual(first.body);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(await biller('GET', `/payments/${key}`)).toMatchObject({ status: 200, body: first.body });
      expect(await pay(prn, randomUUID())).toMatchObject({
        status: 409,
        body: { error: { code: 'PRN_ALREADY_PAID', message: 'this PRN is already paid' } },
      });
      expect(await adminPrn(prn)).toMatchObject({ status: 'PAID', payment_calls: 3, payments: [first.body] });
    });
  });

  describe('admin: PRNs', () => {
    it('creates a PRN with every field, shown as the biller API shows it', async () => {
      const fields = {
        prn: '1234567890123',
        amount: 12.5,
        currency: 'USD',
        status: 'SUBMITTED',
        service_name: 'URA - Customs',
        payer_name: 'Okello John',
        expires_at: '2031-06-30T12:00:00Z',
      };
      const created = await sandbox.admin('POST', '/sandbox/v1/prns', fields);
      const shown = { ...fields, expires_at: '2031-06-30T12:00:00.000Z' };
      expect(created).toEqual({
        status: 201,
        body: { code: 201, status: 'success', message: 'PRN created', data: shown },
      });
      expect((await biller('GET', '/prns/1234567890123')).body).toEqual(shown);
      expect(await adminPrn('1234567890123')).toEqual({ ...shown, payment_calls: 0, payments: [] });
    });

    it('generates 13 random digits when no prn is given, with defaults for the rest', async () => {
      const [a, b] = [await createPrn(), await createPrn()];
      expect(a).toMatch(/^\d{13}$/);
      expect(b).not.toBe(a);
      const expiresAt = Date.parse((await adminPrn(a)).expires_at as string);
      expect(await adminPrn(a)).toMatchObject({
        amount: 25000,
        currency: 'UGX',
        status: 'AVAILABLE',
        service_name: 'URA - Domestic Tax',
        payer_name: expect.any(String),
      });
      expect(expiresAt).toBeGreaterThan(Date.now() + 24 * 3600_000);
    });

    it('answers 409 for a PRN that exists, leaving it as it was', async () => {
      const answer = await sandbox.admin('POST', '/sandbox/v1/prns', { prn: SEEDED.prn, amount: 1, currency: 'UGX' });
      expect(answer).toEqual({
        status: 409,
        body: { code: 409, status: 'error', message: `PRN ${SEEDED.prn} already exists`, data: {} },
      });
      expect((await biller('GET', `/prns/${SEEDED.prn}`)).body).toMatchObject({ amount: 25000 });
    });

    it.each<[string, unknown, string[]]>([
      ['no amount', { currency: 'UGX' }, ['amount']],
      ['an amount as a string', { amount: '25000', currency: 'UGX' }, ['amount']],
      ['decimals UGX has not', { amount: 10.5, currency: 'UGX' }, ['amount']],
      ['a zero amount', { amount: 0, currency: 'UGX' }, ['amount']],
      ['an unknown currency', { amount: 10, currency: 'ugx' }, ['currency']],
      ['a prn that is not 13 digits', { prn: '12345', amount: 10, currency: 'UGX' }, ['prn']],
      ['an unknown status', { amount: 10, currency: 'UGX', status: 'OPEN' }, ['status']],
      ['an empty payer name', { amount: 10, currency: 'UGX', payer_name: ' ' }, ['payer_name']],
      ['an expiry that is not a time', { amount: 10, currency: 'UGX', expires_at: 'tomorrow' }, ['expires_at']],
      ['an unknown field', { amount: 10, currency: 'UGX', colour: 'red' }, ['colour']],
      ['several bad fields at once', { prn: 'x', amount: -5, currency: 'UGX', status: 1 }, ['prn', 'amount', 'status']],
      ['a body that is not an object', [1, 2], ['body']],
    ])('refuses %s with a 400 envelope naming the field', async (_name, body, fields) => {
      const { status, body: answer } = await sandbox.admin('POST', '/sandbox/v1/prns', body);
      expect(status).toBe(400);
      expect(answer).toMatchObject({ code: 400, status: 'error', message: expect.any(String) });
      expect((answer.data.errors as Array<{ field: string }>).map((error) => error.field)).toEqual(fields);
    });

    it('answers a body that is not JSON, or not sent as JSON, with a 4xx envelope', async () => {
      const post = (body: string, type: string) =>
        fetch(`${sandbox.url}/sandbox/v1/prns`, {
          method: 'POST',
          headers: { authorization: `Bearer ${SANDBOX_ADMIN_TOKEN}`, 'content-type': type },
          body,
        });
      for (const [body, type] of [
        ['{"amount": 1,', 'application/json'],
        ['amount=1', 'text/plain'],
        ['amount=1&currency=UGX', 'application/x-www-form-urlencoded'],
        ['<prn/>', 'application/xml'],
      ]) {
        const response = await post(body, type);
        expect(response.status).toBeGreaterThanOrEqual(400);
        expect(response.status).toBeLessThan(500);
        expect(await response.json()).toMatchObject({
          code: response.status,
          status: 'error',
          message: expect.any(String),
        });
      }
    });

    it('answers an unknown PRN 404 in the envelope', async () => {
      expect(await sandbox.admin('GET', '/sandbox/v1/prns/0000000000000')).toMatchObject({
        status: 404,
        body: { code: 404, status: 'error' },
      });
    });

    it('refuses every admin route without the admin token', async () => {
      for (const authorization of [
        undefined,
        'Bearer wrong-token-0123456789',
        `Basic ${SANDBOX_ADMIN_TOKEN}`,
        API_KEY,
      ]) {
        const call = (method: string, path: string, body?: unknown) =>
          fetch(`${sandbox.url}${path}`, {
            method,
            headers: { 'content-type': 'application/json', ...(authorization && { authorization }) },
            body: body === undefined ? undefined : JSON.stringify(body),
          });
        for (const response of [
          await call('POST', '/sandbox/v1/prns', { amount: 1, currency: 'UGX' }),
          await call('GET', `/sandbox/v1/prns/${SEEDED.prn}`),
          await call('GET', '/sandbox/v1/biller/faults'),
          await call('PUT', '/sandbox/v1/biller/faults', { fail_next: 5 }),
        ]) {
          expect(response.status).toBe(401);
          expect(await response.json()).toMatchObject({ code: 401, status: 'error' });
        }
      }
      expect((await sandbox.admin('GET', '/sandbox/v1/biller/faults')).body.data).toEqual({
        fail_next: 0,
        delay_ms: 0,
        fail_lookups_next: 0,
      });
    });
  });

  describe('admin: fault injection', () => {
    it('fails the next N payment calls with 503, doing nothing, then pays', async () => {
      const prn = await createPrn();
      expect((await setFaults({ fail_next: 2 })).body).toEqual({
        code: 200,
        status: 'success',
        message: 'Biller faults set',
        data: { fail_next: 2, delay_ms: 0, fail_lookups_next: 0 },
      });
      const key = randomUUID();
      for (let call = 0; call < 2; call += 1) {
        expect(await pay(prn, key)).toMatchObject({ status: 503, body: { error: { code: 'SERVICE_UNAVAILABLE' } } });
      }
      expect((await sandbox.admin('GET', '/sandbox/v1/biller/faults')).body.data).toEqual({
        fail_next: 0,
        delay_ms: 0,
        fail_lookups_next: 0,
      });
      expect(await adminPrn(prn)).toMatchObject({ status: 'AVAILABLE', payment_calls: 2, payments: [] });
      expect((await pay(prn, key)).status).toBe(201);
      expect(await adminPrn(prn)).toMatchObject({
        status: 'PAID',
        payment_calls: 3,
        payments: [expect.objectContaining({ idempotency_key: key })],
      });
    });

    it('fails the next N PRN lookups with 503, then answers', async () => {
      const prn = await createPrn();
      await setFaults({ fail_lookups_next: 1 });
      expect(await biller('GET', `/prns/${prn}`)).toMatchObject({
        status: 503,
        body: { error: { code: 'SERVICE_UNAVAILABLE' } },
      });
      expect(await biller('GET', `/prns/${prn}`)).toMatchObject({ status: 200, body: { prn, status: 'AVAILABLE' } });
      expect((await sandbox.admin('GET', '/sandbox/v1/biller/faults')).body.data).toEqual({
        fail_next: 0,
        delay_ms: 0,
        fail_lookups_next: 0,
      });
    });

    it.each<[unknown, string[]]>([
      [{ fail_next: -1 }, ['fail_next']],
      [{ fail_lookups_next: 1_001 }, ['fail_lookups_next']],
      [{ fail_next: 1.5, delay_ms: 'slow' }, ['fail_next', 'delay_ms']],
      [{ delay_ms: 120_001 }, ['delay_ms']],
      [{ fail: 1 }, ['fail']],
      ['3', ['body']],
    ])('refuses faults %j, naming %j', async (body, fields) => {
      const { status, body: answer } = await setFaults(body as Record<string, unknown>);
      expect(status).toBe(400);
      expect((answer.data.errors as Array<{ field: string }>).map((error) => error.field)).toEqual(fields);
    });

    it('delays payment calls: a payer stopped mid-call leaves a payment that completes, and its retry pays nothing more', async () => {
      const prn = await createPrn();
      await setFaults({ delay_ms: 2_000 });
      const key = randomUUID();
      const payer = new AbortController();
      const call = pay(prn, key, undefined, payer.signal).catch((error: unknown) => error);
      const pending = await eventually(async () => {
        const answer = await biller('GET', `/payments/${key}`);
        return answer.status === 200 ? answer.body : undefined;
      }, 1_800);
      payer.abort();
      expect(await call).toMatchObject({ name: 'AbortError' });
      expect(pending).toMatchObject({ status: 'PENDING', prn });
      expect(pending.receipt_number).toBeUndefined();
      expect((await biller('GET', `/prns/${prn}`)).body.status).toBe('SUBMITTED');
      const completed = await eventually(async () => {
        const answer = await biller('GET', `/payments/${key}`);
        return answer.body.status === 'COMPLETED' ? answer.body : undefined;
      }, 5_000);
      await setFaults({});
      expect(await pay(prn, key)).toMatchObject({ status: 201, body: completed });
      expect(await adminPrn(prn)).toMatchObject({ status: 'PAID', payment_calls: 2, payments: [completed] });
    });
  });
});
