/**
 * Property-based checks of the merchant API's input handling (docs/api.md, Conventions): whatever arrives,
 * initialize and confirm answer a 4xx envelope and write nothing, unless the body is valid, in
 * which case initialize answers 202 and writes exactly one collection: CollectionInitiated and
 * the CollectionOpened it publishes. Arbitraries and setup in
 * bad-input-test-setup.ts. This file: initialize refuses every kind of wrong body (any JSON value,
 * random keys, one or several fields made wrong, unknown fields, random bytes) and names the wrong
 * field; free text never causes a 5xx; valid bodies are accepted with exactly one collection.
 */
import * as fc from 'fast-check';
import type { PaygateClient } from '@paygate/testing';
import {
  anyJson,
  asSent,
  badInputHelpers,
  fcOptions,
  FIELDS,
  INITIALIZE,
  invalidValue,
  rawGarbage,
  REQUIRED,
  startBadInputPaygate,
  unknownKey,
  validBody,
  validMobileMoney,
  type Json,
} from './bad-input-test-setup';
import type { InProcessPaygate } from '@paygate/standalone';

describe('bad input never writes and never fails the server (property-based)', () => {
  let paygate: InProcessPaygate;
  let client: PaygateClient;
  const { post, countCollectionEvents, expectRefused } = badInputHelpers(() => ({ paygate, client }));

  beforeAll(async () => {
    ({ paygate, client } = await startBadInputPaygate());
  });

  afterAll(async () => {
    await paygate?.close();
  });

  describe('initialize', () => {
    it('refuses any JSON value that is not an object of the request', async () => {
      await fc.assert(
        fc.asyncProperty(anyJson, async (value) => {
          fc.pre(
            typeof asSent(value) !== 'object' ||
              asSent(value) === null ||
              Array.isArray(asSent(value)) ||
              !REQUIRED.every((key) => key in (asSent(value) as Json)),
          );
          await expectRefused(INITIALIZE, JSON.stringify(value) ?? 'null');
        }),
        fcOptions(),
      );
    });

    it('refuses objects with random keys (some of them fields of the request)', async () => {
      const key = fc.oneof(
        fc.constantFrom(...FIELDS),
        fc.string({ maxLength: 20 }),
        fc.string({ unit: 'binary', maxLength: 20 }),
      );
      await fc.assert(
        fc.asyncProperty(fc.dictionary(key, anyJson, { maxKeys: 15 }), async (object) => {
          // Missing a required field: certainly invalid.
          fc.pre(!REQUIRED.every((field) => field in object));
          await expectRefused(INITIALIZE, JSON.stringify(object));
        }),
        fcOptions(),
      );
    });

    const oneReplaced = fc
      .constantFrom(...FIELDS)
      .chain((field) => invalidValue[field].map((value) => ({ field, value })));

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
        (field === 'transaction_method' && value === 'CARD') ||
        (field === 'provider_code' && (value === 'card_ug' || value === 'airtel_money_ug'));
      await fc.assert(
        fc.asyncProperty(
          oneReplaced.filter((replaced) => !inconsistent(replaced)),
          async ({ field, value }) => {
            const answer = await post(INITIALIZE, JSON.stringify({ ...validMobileMoney(), [field]: value }));
            const errors = ((answer.body as { data?: { errors?: { field: string }[] } }).data?.errors ?? []).map(
              (error) => error.field,
            );
            // Text no store can hold is named by its path inside the field (`customer_name[0]`).
            const named = errors.some(
              (named) => named === field || named.startsWith(`${field}.`) || named.startsWith(`${field}[`),
            );
            expect({ field, value, status: answer.status, named }).toEqual({ field, value, status: 400, named: true });
          },
        ),
        fcOptions(),
      );
    });

    it('names a field whose object holds a __proto__ key like any other wrong value (the key itself is dropped)', async () => {
      const raw = JSON.stringify(validMobileMoney()).replace(
        /"description":"[^"]*"/,
        '"description":{"__proto__":null}',
      );
      const answer = await post(INITIALIZE, raw);
      const errors = (answer.body as { data?: { errors?: { field: string }[] } }).data?.errors ?? [];
      expect({ status: answer.status, fields: errors.map((error) => error.field) }).toEqual({
        status: 400,
        fields: ['description'],
      });
    });

    it('refuses a constructor.prototype key as an unknown field instead of dropping it and accepting the rest', async () => {
      const raw = JSON.stringify({ ...validMobileMoney(), constructor: { prototype: 0 } });
      const answer = await post(INITIALIZE, raw);
      const errors = (answer.body as { data?: { errors?: { field: string }[] } }).data?.errors ?? [];
      expect({ status: answer.status, fields: errors.map((error) => error.field) }).toEqual({
        status: 400,
        fields: ['constructor'],
      });
    });

    it('refuses a valid card body whose redirect_url is replaced by a value wrong for it', async () => {
      await fc.assert(
        fc.asyncProperty(invalidValue.redirect_url, async (value) => {
          const body = {
            ...validMobileMoney(),
            transaction_method: 'CARD',
            provider_code: 'card_ug',
            amount: 25000,
            redirect_url: value,
          };
          delete (body as Json).msisdn;
          await expectRefused(INITIALIZE, JSON.stringify(body));
        }),
        fcOptions(),
      );
    });

    it('refuses a valid body with several fields replaced', async () => {
      const several = fc
        .subarray([...FIELDS], { minLength: 2 })
        .chain((fields) =>
          fc.tuple(...fields.map((field) => invalidValue[field].map((value) => [field, value] as const))),
        )
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

    it('never answers 5xx to free text in customer_name and description: 202 writes one collection (two events), 4xx none', async () => {
      // Any code point, with NUL, controls, line separators and lone surrogates (valid in JSON text) made likely.
      const unit = fc.oneof(
        fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
        fc.constantFrom('\u0000', '\u0001', '\u001f', '\u007f', '\u2028', '\ufeff', '\ud800', '\udfff'),
      );
      const text = fc.oneof(
        fc.string({ unit, minLength: 1, maxLength: 100 }),
        fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 100 }),
      );
      await fc.assert(
        fc.asyncProperty(
          text,
          fc.option(fc.string({ unit: 'binary', maxLength: 200 }), { nil: undefined }),
          async (name, description) => {
            const before = await countCollectionEvents();
            const body = {
              ...validMobileMoney(),
              customer_name: name,
              ...(description !== undefined && { description }),
            };
            const answer = await post(INITIALIZE, JSON.stringify(body));
            const after = await countCollectionEvents();
            expect({
              body,
              status: answer.status < 500 ? 'not 5xx' : answer.status,
              text: answer.status < 500 ? '' : answer.text,
            }).toEqual({
              body,
              status: 'not 5xx',
              text: '',
            });
            expect({ body, written: after - before }).toEqual({ body, written: answer.status === 202 ? 2 : 0 });
          },
        ),
        fcOptions(),
      );
    });

    it('accepts well-formed valid bodies: 202 and exactly one new collection each', async () => {
      await fc.assert(
        fc.asyncProperty(validBody, async (body) => {
          const before = await countCollectionEvents();
          const answer = await post(INITIALIZE, JSON.stringify(body));
          expect({ body, status: answer.status, answer: answer.status === 202 ? '' : answer.text }).toEqual({
            body,
            status: 202,
            answer: '',
          });
          const data = (answer.body as { data: Json }).data;
          expect(answer.body).toEqual({
            code: 202,
            status: 'accepted',
            message: 'Transaction initiated. Pending customer confirmation',
            data: expect.any(Object),
          });
          expect(data).toMatchObject({
            transaction_status: 'PENDING',
            request_amount: body.amount,
            provider_code: body.provider_code,
            charge_customer: body.charge_customer ?? false,
          });
          expect(data.transaction_amount).toBe((data.total_credit as number) + (data.transaction_fee as number));
          if (body.merchant_reference === 'auto') expect(data.merchant_reference).toMatch(/^MCTREF[A-Z0-9]{14}$/);
          else expect(data.merchant_reference).toBe(body.merchant_reference);
          expect(await countCollectionEvents()).toBe(before + 2);
          const stream = await paygate.infrastructure.store.readStream(
            `collection-${data.internal_reference as string}`,
          );
          expect(stream.map((event) => event.type)).toEqual(['CollectionInitiated', 'collections.CollectionOpened']);
        }),
        fcOptions(),
      );
    });
  });
});
