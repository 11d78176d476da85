/**
 * Shared setup of the property-based bad-input specs (bad-input.*.property.spec.ts): the
 * fast-check arbitraries of valid and invalid requests, and one in-process Paygate per spec file
 * with a merchant and the check of a refusal.
 *
 * Every collection here waits for a confirmation that never comes, with a confirmation timeout
 * of an hour, so no event is written in the background and counts are exact.
 * Set FC_SEED (and FC_PATH) to replay a failure fast-check reports; the number of runs of each
 * property is PROPERTY_RUNS (input-sizes.ts).
 *
 * Test code (it uses jest's `expect`): jest does not collect it (not *.spec.ts) and the build
 * leaves it out (tsconfig.build.json).
 */
import * as fc from 'fast-check';
import {
  INITIALIZE_FIELDS,
  INITIALIZE_REQUIRED,
  PaygateClient,
  SILENT_MOMO_REQUEST,
  TEST_ADMIN_TOKEN,
  TEST_TIMERS,
} from '@paygate/testing';
import type { InProcessPaygate } from '@paygate/standalone';
import { PROPERTY_RUNS } from './input-sizes';
import { startTestPaygate } from '../standalone/test-paygate';

export type Json = Record<string, unknown>;

export interface Answer {
  status: number;
  text: string;
  body: unknown;
}

const HOUR_MS = '3600000';

export const fcOptions = (): fc.Parameters<unknown> => ({
  numRuns: PROPERTY_RUNS,
  ...(process.env.FC_SEED !== undefined && { seed: Number(process.env.FC_SEED) }),
  ...(process.env.FC_PATH !== undefined && { path: process.env.FC_PATH }),
});

export const FIELDS = INITIALIZE_FIELDS;
export const REQUIRED = INITIALIZE_REQUIRED;

// ---------------------------------------------------------------------------------------------
// Arbitraries

/** JSON values of every kind: unicode strings, huge and tiny numbers, -0, deep nesting. */
export const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue(),
  fc.jsonValue({ stringUnit: 'binary', maxDepth: 4 }),
  fc.constantFrom(
    -0,
    0,
    1e308,
    -1e308,
    5e-324,
    Number.MAX_SAFE_INTEGER + 2,
    2 ** 64,
    1e21,
    0.1 + 0.2,
    null,
    true,
    false,
    '',
    ' ',
    '\u0000',
    'auto',
    'UGX',
    'MOBILE_MONEY',
  ),
  fc.double(),
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 5 }),
  fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 }),
);

/** A JSON value as the server will see it (undefined, NaN, Infinity and -0 do not survive JSON). */
export const asSent = (value: unknown): unknown => {
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
export const invalidValue: Record<string, fc.Arbitrary<unknown>> = {
  merchant_reference: jsonWhere(
    (v) => notString(v) || !REFERENCE.test(v as string),
    fc.string({ unit: 'binary', minLength: 65, maxLength: 80 }),
    fc.string({ maxLength: 70 }),
  ),
  transaction_method: jsonWhere(
    (v) => v !== 'MOBILE_MONEY',
    fc.constantFrom('CARD', 'mobile_money', 'MOBILE MONEY', 'BANK'),
  ),
  provider_code: jsonWhere(
    (v) => v !== 'mtn_momo_ug',
    fc.constantFrom('card_ug', 'airtel_money_ug', 'MTN_MOMO_UG', 'mtn_momo_ug ', ''),
  ),
  currency: jsonWhere((v) => v !== 'UGX', fc.constantFrom('ugx', 'KES', 'USD', 'UGXX', 'UG')),
  amount: jsonWhere(
    (v) => typeof v !== 'number' || !Number.isInteger(v) || v < 500 || v > 5_000_000,
    fc.double({ noNaN: true }),
    fc.integer({ min: -1_000_000, max: 499 }),
    fc.integer({ min: 5_000_001 }),
    fc.double({ min: 500, max: 5_000_000, noInteger: true }),
    fc.constantFrom('81000', '1e3', 0, -0, -1, 100.5, 81000.5, 1e308),
  ),
  msisdn: jsonWhere(
    (v) => notString(v) || !MTN_MSISDN.test(v as string),
    fc.stringMatching(/^[0-9+ ]{0,16}$/),
    fc.constantFrom('256701234567', '256752000001', '0772000001', '+256772000001', '25677200000'),
  ),
  customer_name: jsonWhere(
    (v) => notString(v) || !/\S/.test(v as string) || (v as string).length > 100,
    fc.string({ minLength: 101, maxLength: 300 }),
    fc.constantFrom('', ' ', '\t\n', '\u00a0\u3000'),
  ),
  customer_email: jsonWhere((v) => notString(v) || !(v as string).includes('@'), fc.string({ maxLength: 40 })),
  description: jsonWhere(
    (v) => notString(v) || (v as string).length > 255,
    fc.string({ minLength: 256, maxLength: 400 }),
  ),
  charge_customer: jsonWhere((v) => typeof v !== 'boolean', fc.constantFrom('true', 'false', 1, 0)),
  require_confirmation: jsonWhere((v) => typeof v !== 'boolean', fc.constantFrom('true', 'false', 1, 0)),
  redirect_url: jsonWhere(
    (v) => notString(v) || !/^https?:\/\//i.test(v as string),
    fc.constantFrom('ftp://x.example.com', '/return', 'javascript:alert(1)', 'shop.example.com'),
  ),
};

/** Keys that are not fields of the request (an unknown field is an error, docs/api.md). */
export const unknownKey = fc
  .oneof(
    fc.string({ minLength: 1, maxLength: 20 }),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }),
    fc.constantFrom(
      'constructor',
      'toString',
      'valueOf',
      'hasOwnProperty',
      'isPrototypeOf',
      '__defineGetter__',
      'prn',
      'Amount',
      'amount ',
      'merchantReference',
    ),
  )
  .filter((key) => !(FIELDS as readonly string[]).includes(key) && key !== '__proto__');

let sequence = 0;
const freshReference = () => `pbt-${Date.now().toString(36)}-${(sequence++).toString(36)}`;

/** A valid MTN body; every call has a new merchant_reference. */
export const validMobileMoney = (): Json => ({ merchant_reference: freshReference(), ...SILENT_MOMO_REQUEST });

/** Any of the three providers, with valid random values (docs/api.md, Payment options). */
export const validBody: fc.Arbitrary<Json> = fc
  .record({
    provider: fc.constantFrom('mtn_momo_ug', 'airtel_money_ug', 'card_ug'),
    reference: fc.oneof(fc.stringMatching(/^[A-Za-z0-9._:/-]{1,40}$/), fc.constant('auto')),
    fraction: fc.double({ min: 0, max: 1, noNaN: true }),
    subscriber: fc.integer({ min: 0, max: 9_999_999 }),
    prefixIndex: fc.nat(),
    name: fc
      .string({ unit: 'grapheme', minLength: 1, maxLength: 60 })
      .filter((name) => /\S/.test(name) && name.length <= 100),
    charge: fc.option(fc.boolean(), { nil: undefined }),
    description: fc.option(
      fc.string({ unit: 'grapheme', maxLength: 80 }).filter((text) => text.length <= 255),
      { nil: undefined },
    ),
    email: fc.option(fc.emailAddress(), { nil: undefined }),
  })
  .map(({ provider, reference, fraction, subscriber, prefixIndex, name, charge, description, email }) => {
    const limits = { mtn_momo_ug: [500, 5_000_000], airtel_money_ug: [500, 2_000_000], card_ug: [1000, 10_000_000] }[
      provider
    ] as [number, number];
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
export const rawGarbage: fc.Arbitrary<Uint8Array> = fc.oneof(
  fc.uint8Array({ maxLength: 2048 }),
  fc.string({ unit: 'binary', maxLength: 500 }).map((text) => new TextEncoder().encode(text)),
  fc
    .string({ unit: 'binary-ascii', maxLength: 500 })
    .map((text) => Uint8Array.from([...text].map((char) => char.charCodeAt(0)))),
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
  fc
    .constantFrom(
      '',
      ' ',
      'null',
      '[]',
      '"x"',
      '1e309',
      '-0',
      '{"__proto__":{"admin":true}}',
      '{"constructor":{"prototype":{}}}',
      '\ufeff{}',
      '{}{}',
    )
    .map((text) => new TextEncoder().encode(text)),
);

// ---------------------------------------------------------------------------------------------
// The Paygate under test

export const INITIALIZE = '/v1/collections/initialize';
export const CONFIRM = '/v1/collections/confirm';

/** Paygate with an hour for every timer, and a merchant. */
export async function startBadInputPaygate(): Promise<{ paygate: InProcessPaygate; client: PaygateClient }> {
  const paygate = await startTestPaygate({
    ...TEST_TIMERS,
    CONFIRMATION_TIMEOUT_MS: HOUR_MS,
    PROMPT_TIMEOUT_MS: HOUR_MS,
    CHECKOUT_TIMEOUT_MS: HOUR_MS,
  });
  const client = await PaygateClient.withNewMerchant(paygate.url, TEST_ADMIN_TOKEN, 'Property merchant');
  return { paygate, client };
}

/** Requests and checks against what `started()` returns (called per use: it is started in beforeAll). */
export function badInputHelpers(started: () => { paygate: InProcessPaygate; client: PaygateClient }) {
  async function post(path: string, body: string | Uint8Array): Promise<Answer> {
    const { paygate, client } = started();
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

  const countCollectionEvents = async () =>
    (await started().paygate.infrastructure.store.readAll({ streamPrefixes: ['collection-'], maxCount: 1_000_000 }))
      .length;

  /** The refusal docs/api.md promises: a 4xx error envelope, and no collection event written. */
  async function expectRefused(path: string, body: string | Uint8Array): Promise<void> {
    const before = await countCollectionEvents();
    const answer = await post(path, body);
    const shown = typeof body === 'string' ? body : Buffer.from(body).toString('base64');
    if (answer.status < 400 || answer.status >= 500)
      throw new Error(`${path} answered ${answer.status} ${answer.text.slice(0, 300)} to ${shown.slice(0, 300)}`);
    expect(answer.body).toEqual({
      code: answer.status,
      status: 'error',
      message: expect.any(String),
      data: expect.any(Object),
    });
    expect(Array.isArray((answer.body as { data: unknown }).data)).toBe(false);
    expect(await countCollectionEvents()).toBe(before);
  }

  return { post, countCollectionEvents, expectRefused };
}
