/**
 * Property-based checks of the merchant API's input handling (DESIGN §2): whatever arrives,
 * initialize and confirm answer a 4xx envelope and write nothing, unless the body is valid,
 * in which case initialize answers 202 and writes exactly one event.
 *
 * Every collection here waits for a confirmation that never comes, with a confirmation timeout
 * of an hour, so no event is written in the background and counts are exact.
 * Set FC_SEED (and FC_PATH) to replay a failure fast-check reports.
 */
import * as fc from 'fast-check';
import { PaygateClient, TEST_ADMIN_TOKEN, TEST_MASTER_KEY, TEST_TIMERS } from '@paygate/testing';
import { startInProcess, type InProcessPaygate } from './in-process';

type Json = Record<string, unknown>;

interface Answer {
  status: number;
  text: string;
  body: unknown;
}

const NUM_RUNS = Number(process.env.FC_NUM_RUNS ?? 300);
const HOUR_MS = '3600000';

const fcOptions = (): fc.Parameters<unknown> => ({
  numRuns: NUM_RUNS,
  ...(process.env.FC_SEED !== undefined && { seed: Number(process.env.FC_SEED) }),
  ...(process.env.FC_PATH !== undefined && { path: process.env.FC_PATH }),
});

const FIELDS = [
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
] as const;
const REQUIRED = ['merchant_reference', 'transaction_method', 'provider_code', 'currency', 'amount', 'customer_name'];

// ---------------------------------------------------------------------------------------------
// Arbitraries

/** JSON values of every kind: unicode strings, huge and tiny numbers, -0, deep nesting. */
const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue(),
  fc.jsonValue({ stringUnit: 'binary', maxDepth: 4 }),
  fc.constantFrom(-0, 0, 1e308, -1e308, 5e-324, Number.MAX_SAFE_INTEGER + 2, 2 ** 64, 1e21, 0.1 + 0.2, null, true, false, '', ' ', '\u0000', 'auto', 'UGX', 'MOBILE_MONEY'),
  fc.double(),
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 5 }),
  fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 }),
);

/** A JSON value as the server will see it (undefined, NaN, Infinity and -0 do not survive JSON). */
const asSent = (value: unknown): unknown => {
  const text = JSON.stringify({ value });
  return (JSON.parse(text) as { value?: unknown }).value;
};

/** JSON values (as sent) that satisfy `invalid`. */
const jsonWhere = (invalid: (value: unknown) => boolean, ...extra: fc.Arbitrary<unknown>[]) =>
  fc
    .oneof(anyJson, ...extra)
    .map(asSent)
    .filter((value) => value !== undefined && invalid(value));

const notString = (value: unknown) => typeof value !== 'string';
const MTN_MSISDN = /^2567[6-9][0-9]{7}$/;
const REFERENCE = /^(auto|[A-Za-z0-9._:/-]{1,64})$/;

/** For each field of a valid mobile money body: values that are certainly wrong there. */
const invalidValue: Record<string, fc.Arbitrary<unknown>> = {
  merchant_reference: jsonWhere((v) => notString(v) || !REFERENCE.test(v as string), fc.string({ unit: 'binary', minLength: 65, maxLength: 80 }), fc.string({ maxLength: 70 })),
  transaction_method: jsonWhere((v) => v !== 'MOBILE_MONEY', fc.constantFrom('CARD', 'mobile_money', 'MOBILE MONEY', 'BANK')),
  provider_code: jsonWhere((v) => v !== 'mtn_momo_ug', fc.constantFrom('card_ug', 'airtel_money_ug', 'MTN_MOMO_UG', 'mtn_momo_ug ', '')),
  currency: jsonWhere((v) => v !== 'UGX', fc.constantFrom('ugx', 'KES', 'USD', 'UGXX', 'UG')),
  amount: jsonWhere(
    (v) => typeof v !== 'number' || !Number.isInteger(v) || v < 500 || v > 5_000_000,
    fc.double({ noNaN: true }),
    fc.integer({ min: -1_000_000, max: 499 }),
    fc.integer({ min: 5_000_001 }),
    fc.double({ min: 500, max: 5_000_000, noInteger: true }),
    fc.constantFrom('81000', '1e3', 0, -0, -1, 100.5, 81000.5, 1e308),
  ),
  msisdn: jsonWhere((v) => notString(v) || !MTN_MSISDN.test(v as string), fc.stringMatching(/^[0-9+ ]{0,16}$/), fc.constantFrom('256701234567', '256752000001', '0772000001', '+256772000001', '25677200000')),
  customer_name: jsonWhere(
    (v) => notString(v) || !/\S/.test(v as string) || (v as string).length > 100,
    fc.string({ minLength: 101, maxLength: 300 }),
    fc.constantFrom('', ' ', '\t\n', '\u00a0\u3000'),
  ),
  customer_email: jsonWhere((v) => notString(v) || !(v as string).includes('@'), fc.string({ maxLength: 40 })),
  description: jsonWhere((v) => notString(v) || (v as string).length > 255, fc.string({ minLength: 256, maxLength: 400 })),
  charge_customer: jsonWhere((v) => typeof v !== 'boolean', fc.constantFrom('true', 'false', 1, 0)),
  require_confirmation: jsonWhere((v) => typeof v !== 'boolean', fc.constantFrom('true', 'false', 1, 0)),
  redirect_url: jsonWhere((v) => notString(v) || !/^https?:\/\//i.test(v as string), fc.constantFrom('ftp://x.example.com', '/return', 'javascript:alert(1)', 'shop.example.com')),
};

/** Keys that are not fields of the request (an unknown field is an error, DESIGN §2). */
const unknownKey = fc
  .oneof(fc.string({ minLength: 1, maxLength: 20 }), fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }), fc.constantFrom('constructor', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', '__defineGetter__', 'prn', 'Amount', 'amount ', 'merchantReference'))
  .filter((key) => !(FIELDS as readonly string[]).includes(key) && key !== '__proto__');

let sequence = 0;
const freshReference = () => `pbt-${Date.now().toString(36)}-${(sequence++).toString(36)}`;

/** A valid MTN body; every call has a new merchant_reference. */
const validMobileMoney = (): Json => ({
  merchant_reference: freshReference(),
  transaction_method: 'MOBILE_MONEY',
  provider_code: 'mtn_momo_ug',
  currency: 'UGX',
  amount: 81000,
  // Never answers: even a wrongly accepted confirm leaves nothing happening in the background.
  msisdn: '256772000004',
  customer_name: 'Jane Doe',
  customer_email: 'jane@example.com',
  description: 'Order 1001',
});

/** Any of the three providers, with valid random values (DESIGN §3 catalogue). */
const validBody: fc.Arbitrary<Json> = fc
  .record({
    provider: fc.constantFrom('mtn_momo_ug', 'airtel_money_ug', 'card_ug'),
    reference: fc.oneof(fc.stringMatching(/^[A-Za-z0-9._:/-]{1,40}$/), fc.constant('auto')),
    fraction: fc.double({ min: 0, max: 1, noNaN: true }),
    subscriber: fc.integer({ min: 0, max: 9_999_999 }),
    prefixIndex: fc.nat(),
    name: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 60 }).filter((name) => /\S/.test(name) && name.length <= 100),
    charge: fc.option(fc.boolean(), { nil: undefined }),
    description: fc.option(fc.string({ unit: 'grapheme', maxLength: 80 }).filter((text) => text.length <= 255), { nil: undefined }),
    email: fc.option(fc.emailAddress(), { nil: undefined }),
  })
  .map(({ provider, reference, fraction, subscriber, prefixIndex, name, charge, description, email }) => {
    const limits = { mtn_momo_ug: [500, 5_000_000], airtel_money_ug: [500, 2_000_000], card_ug: [1000, 10_000_000] }[provider] as [number, number];
    const amount = Math.min(limits[1], limits[0] + Math.floor(fraction * (limits[1] - limits[0] + 1)));
    const body: Json = {
      // Unique per run: the same reference again would be a replay or a 409.
      merchant_reference: reference === 'auto' ? 'auto' : `${freshReference()}.${reference}`.slice(0, 64),
      transaction_method: provider === 'card_ug' ? 'CARD' : 'MOBILE_MONEY',
      provider_code: provider,
      currency: 'UGX',
      amount,
      customer_name: name,
    };
    if (provider === 'card_ug') body.redirect_url = 'https://shop.example.com/paid?order=7';
    else {
      const prefixes = provider === 'mtn_momo_ug' ? ['76', '77', '78', '79'] : ['70', '74', '75'];
      body.msisdn = `256${prefixes[prefixIndex % prefixes.length]}${String(subscriber).padStart(7, '0')}`;
    }
    if (charge !== undefined) body.charge_customer = charge;
    if (description !== undefined) body.description = description;
    if (email !== undefined) body.customer_email = email;
    return body;
  });

/** Bodies that cannot be JSON objects of the request: random bytes, random text, truncated JSON. */
const rawGarbage: fc.Arbitrary<Uint8Array> = fc.oneof(
  fc.uint8Array({ maxLength: 2048 }),
  fc.string({ unit: 'binary', maxLength: 500 }).map((text) => new TextEncoder().encode(text)),
  fc.string({ unit: 'binary-ascii', maxLength: 500 }).map((text) => Uint8Array.from([...text].map((char) => char.charCodeAt(0)))),
  fc.nat().map((cut) => {
    const text = JSON.stringify(validMobileMoney());
    return new TextEncoder().encode(text.slice(0, cut % text.length));
  }),
  fc
    .tuple(fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 8 }))
    .map(([at, bytes]) => {
      // A valid body with random bytes spliced in: kept only when that breaks the JSON.
      const text = new TextEncoder().encode(JSON.stringify(validMobileMoney()));
      const cut = at % text.length;
      const out = new Uint8Array(text.length + bytes.length);
      out.set(text.subarray(0, cut));
      out.set(bytes, cut);
      out.set(text.subarray(cut), cut + bytes.length);
      return out;
    })
    .filter((bytes) => {
      try {
        JSON.parse(new TextDecoder().decode(bytes));
        return false;
      } catch {
        return true;
      }
    }),
  fc.constantFrom('', ' ', 'null', '[]', '"x"', '1e309', '-0', '{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{}}}', '\ufeff{}', '{}{}').map((text) => new TextEncoder().encode(text)),
);

// ---------------------------------------------------------------------------------------------

describe('bad input never writes and never fails the server (property-based)', () => {
  let paygate: InProcessPaygate;
  let client: PaygateClient;

  beforeAll(async () => {
    paygate = await startInProcess({
      ...TEST_TIMERS,
      CONFIRMATION_TIMEOUT_MS: HOUR_MS,
      PROMPT_TIMEOUT_MS: HOUR_MS,
      CHECKOUT_TIMEOUT_MS: HOUR_MS,
      MASTER_KEY: TEST_MASTER_KEY,
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      LOG_LEVEL: 'error',
    });
    client = await PaygateClient.withNewMerchant(paygate.url, TEST_ADMIN_TOKEN, 'Property merchant');
  });

  afterAll(async () => {
    await paygate?.close();
  });

  async function post(path: string, body: string | Uint8Array): Promise<Answer> {
    const response = await fetch(`${paygate.url}${path}`, {
      method: 'POST',
      headers: { 'public-key': client.merchant.publicKey, 'content-type': 'application/json' },
      body,
    });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
    return { status: response.status, text, body: parsed };
  }

  const countCollectionEvents = async () => (await paygate.infrastructure.store.readAll({ streamPrefixes: ['collection-'], maxCount: 1_000_000 })).length;

  /** The refusal of DESIGN §2: a 4xx error envelope, and no collection event written. */
  async function expectRefused(path: string, body: string | Uint8Array): Promise<void> {
    const before = await countCollectionEvents();
    const answer = await post(path, body);
    const shown = typeof body === 'string' ? body : Buffer.from(body).toString('base64');
    if (answer.status < 400 || answer.status >= 500) throw new Error(`${path} answered ${answer.status} ${answer.text.slice(0, 300)} to ${shown.slice(0, 300)}`);
    expect(answer.body).toEqual({ code: answer.status, status: 'error', message: expect.any(String), data: expect.any(Object) });
    expect(Array.isArray((answer.body as { data: unknown }).data)).toBe(false);
    expect(await countCollectionEvents()).toBe(before);
  }

  const INITIALIZE = '/v1/collections/initialize';
  const CONFIRM = '/v1/collections/confirm';

  describe('initialize', () => {
    it('refuses any JSON value that is not an object of the request', async () => {
      await fc.assert(
        fc.asyncProperty(anyJson, async (value) => {
          fc.pre(typeof asSent(value) !== 'object' || asSent(value) === null || Array.isArray(asSent(value)) || !REQUIRED.every((key) => key in (asSent(value) as Json)));
          await expectRefused(INITIALIZE, JSON.stringify(value) ?? 'null');
        }),
        fcOptions(),
      );
    });

    it('refuses objects with random keys (some of them fields of the request)', async () => {
      const key = fc.oneof(fc.constantFrom(...FIELDS), fc.string({ maxLength: 20 }), fc.string({ unit: 'binary', maxLength: 20 }));
      await fc.assert(
        fc.asyncProperty(fc.dictionary(key, anyJson, { maxKeys: 15 }), async (object) => {
          // Missing a required field: certainly invalid.
          fc.pre(!REQUIRED.every((field) => field in object));
          await expectRefused(INITIALIZE, JSON.stringify(object));
        }),
        fcOptions(),
      );
    });

    const oneReplaced = fc.constantFrom(...FIELDS).chain((field) => invalidValue[field].map((value) => ({ field, value })));

    it('refuses a valid body with one field replaced by a value wrong for it', async () => {
      await fc.assert(
        fc.asyncProperty(oneReplaced, async ({ field, value }) => {
          await expectRefused(INITIALIZE, JSON.stringify({ ...validMobileMoney(), [field]: value }));
        }),
        fcOptions(),
      );
    });

    it('names the replaced field in data.errors', async () => {
      // A valid method or provider of the wrong kind makes two fields disagree; either may be named.
      const inconsistent = ({ field, value }: { field: string; value: unknown }) =>
        (field === 'transaction_method' && value === 'CARD') || (field === 'provider_code' && (value === 'card_ug' || value === 'airtel_money_ug'));
      await fc.assert(
        fc.asyncProperty(oneReplaced.filter((replaced) => !inconsistent(replaced)), async ({ field, value }) => {
          const answer = await post(INITIALIZE, JSON.stringify({ ...validMobileMoney(), [field]: value }));
          const errors = ((answer.body as { data?: { errors?: { field: string }[] } }).data?.errors ?? []).map((error) => error.field);
          expect({ field, value, status: answer.status, named: errors.includes(field) }).toEqual({ field, value, status: 400, named: true });
        }),
        fcOptions(),
      );
    });

    it('refuses a valid card body whose redirect_url is replaced by a value wrong for it', async () => {
      await fc.assert(
        fc.asyncProperty(invalidValue.redirect_url, async (value) => {
          const body = { ...validMobileMoney(), transaction_method: 'CARD', provider_code: 'card_ug', amount: 25000, redirect_url: value };
          delete (body as Json).msisdn;
          await expectRefused(INITIALIZE, JSON.stringify(body));
        }),
        fcOptions(),
      );
    });

    it('refuses a valid body with several fields replaced', async () => {
      const several = fc
        .subarray([...FIELDS], { minLength: 2 })
        .chain((fields) => fc.tuple(...fields.map((field) => invalidValue[field].map((value) => [field, value] as const))))
        .map((entries) => Object.fromEntries(entries));
      await fc.assert(
        fc.asyncProperty(several, async (changes) => {
          await expectRefused(INITIALIZE, JSON.stringify({ ...validMobileMoney(), ...changes }));
        }),
        fcOptions(),
      );
    });

    it('refuses a valid body with an unknown field added', async () => {
      await fc.assert(
        fc.asyncProperty(unknownKey, anyJson, async (key, value) => {
          await expectRefused(INITIALIZE, JSON.stringify({ ...validMobileMoney(), [key]: value }));
        }),
        fcOptions(),
      );
    });

    it('refuses random bytes, random text and broken JSON sent as application/json', async () => {
      await fc.assert(
        fc.asyncProperty(rawGarbage, async (bytes) => {
          await expectRefused(INITIALIZE, bytes);
        }),
        fcOptions(),
      );
    });

    it('never answers 5xx to free text in customer_name and description: 202 writes one event, 4xx none', async () => {
      // Any code point, with NUL, controls, line separators and lone surrogates (valid in JSON text) made likely.
      const unit = fc.oneof(fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }), fc.constantFrom('\u0000', '\u0001', '\u001f', '\u007f', '\u2028', '\ufeff', '\ud800', '\udfff'));
      const text = fc.oneof(fc.string({ unit, minLength: 1, maxLength: 100 }), fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 100 }));
      await fc.assert(
        fc.asyncProperty(text, fc.option(fc.string({ unit: 'binary', maxLength: 200 }), { nil: undefined }), async (name, description) => {
          const before = await countCollectionEvents();
          const body = { ...validMobileMoney(), customer_name: name, ...(description !== undefined && { description }) };
          const answer = await post(INITIALIZE, JSON.stringify(body));
          const after = await countCollectionEvents();
          expect({ body, status: answer.status < 500 ? 'not 5xx' : answer.status, text: answer.status < 500 ? '' : answer.text }).toEqual({ body, status: 'not 5xx', text: '' });
          expect({ body, written: after - before }).toEqual({ body, written: answer.status === 202 ? 1 : 0 });
        }),
        fcOptions(),
      );
    });

    it('accepts well-formed valid bodies: 202 and exactly one new event each', async () => {
      await fc.assert(
        fc.asyncProperty(validBody, async (body) => {
          const before = await countCollectionEvents();
          const answer = await post(INITIALIZE, JSON.stringify(body));
          expect({ body, status: answer.status, answer: answer.status === 202 ? '' : answer.text }).toEqual({ body, status: 202, answer: '' });
          const data = (answer.body as { data: Json }).data;
          expect(answer.body).toEqual({ code: 202, status: 'accepted', message: 'Transaction initiated. Pending customer confirmation', data: expect.any(Object) });
          expect(data).toMatchObject({ transaction_status: 'PENDING', request_amount: body.amount, provider_code: body.provider_code, charge_customer: body.charge_customer ?? false });
          expect(data.transaction_amount).toBe((data.total_credit as number) + (data.transaction_fee as number));
          if (body.merchant_reference === 'auto') expect(data.merchant_reference).toMatch(/^MCTREF[A-Z0-9]{14}$/);
          else expect(data.merchant_reference).toBe(body.merchant_reference);
          expect(await countCollectionEvents()).toBe(before + 1);
          const stream = await paygate.infrastructure.store.readStream(`collection-${data.internal_reference as string}`);
          expect(stream.map((event) => event.type)).toEqual(['CollectionInitiated']);
        }),
        fcOptions(),
      );
    });
  });

  describe('confirm', () => {
    let pending: string;
    beforeAll(async () => {
      const answer = await client.initialize(validMobileMoney());
      expect(answer.status).toBe(202);
      pending = answer.body.data.internal_reference as string;
    });

    it('refuses any JSON value', async () => {
      await fc.assert(
        fc.asyncProperty(anyJson, async (value) => {
          await expectRefused(CONFIRM, JSON.stringify(value) ?? 'null');
        }),
        fcOptions(),
      );
    });

    it('refuses objects with random keys', async () => {
      const key = fc.oneof(fc.constant('internal_reference'), fc.string({ maxLength: 20 }), fc.string({ unit: 'binary', maxLength: 20 }));
      await fc.assert(
        fc.asyncProperty(fc.dictionary(key, anyJson, { maxKeys: 8 }), async (object) => {
          await expectRefused(CONFIRM, JSON.stringify(object));
        }),
        fcOptions(),
      );
    });

    it('refuses any internal_reference that is not one of this merchant’s (400 or 404)', async () => {
      const reference = fc.oneof(
        anyJson,
        fc.string({ unit: 'binary', minLength: 1, maxLength: 64 }),
        fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 64 }),
        fc.stringMatching(/^PG[0-9A-Z]{24}$/),
        fc.string({ minLength: 65, maxLength: 200 }),
      );
      await fc.assert(
        fc.asyncProperty(reference, async (value) => {
          fc.pre(asSent(value) !== pending);
          await expectRefused(CONFIRM, JSON.stringify({ internal_reference: value }));
        }),
        fcOptions(),
      );
    });

    it('refuses a pending collection’s reference with an unknown field next to it', async () => {
      await fc.assert(
        fc.asyncProperty(fc.tuple(unknownKey.filter((key) => key !== 'internal_reference'), anyJson), async ([key, value]) => {
          await expectRefused(CONFIRM, JSON.stringify({ internal_reference: pending, [key]: value }));
        }),
        fcOptions(),
      );
    });

    it('refuses random bytes, random text and broken JSON sent as application/json', async () => {
      await fc.assert(
        fc.asyncProperty(rawGarbage, async (bytes) => {
          await expectRefused(CONFIRM, bytes);
        }),
        fcOptions(),
      );
    });

    it('left the pending collection untouched', async () => {
      const stream = await paygate.infrastructure.store.readStream(`collection-${pending}`);
      expect(stream.map((event) => event.type)).toEqual(['CollectionInitiated']);
    });
  });

  describe('GET /v1/collections', () => {
    async function get(path: string): Promise<Answer> {
      const response = await fetch(`${paygate.url}${path}`, { headers: { 'public-key': client.merchant.publicKey, 'secret-key': client.merchant.secretKey } });
      const text = await response.text();
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
      return { status: response.status, text, body: parsed };
    }

    const lookup = fc.oneof(
      fc.string({ unit: 'binary', minLength: 1, maxLength: 64 }),
      fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 64 }),
      fc.stringMatching(/^PG[0-9A-Z]{24}$/),
      fc.stringMatching(/^[A-Za-z0-9._:/-]{1,64}$/),
    );

    it('answers an unknown internal_reference or merchant_reference with a 4xx envelope', async () => {
      await fc.assert(
        fc.asyncProperty(lookup, fc.boolean(), async (value, byMerchantReference) => {
          const path = byMerchantReference ? `/v1/collections?merchant_reference=${encodeURIComponent(value)}` : `/v1/collections/${encodeURIComponent(value)}`;
          const answer = await get(path);
          expect({ value, path, status: answer.status >= 400 && answer.status < 500 ? '4xx' : answer.status, text: answer.status < 500 ? '' : answer.text }).toEqual({ value, path, status: '4xx', text: '' });
          expect(answer.body).toEqual({ code: answer.status, status: 'error', message: expect.any(String), data: expect.any(Object) });
        }),
        fcOptions(),
      );
    });
  });
});
