/**
 * Property-based checks of the merchant API's input handling (docs/api.md, Conventions): whatever arrives,
 * initialize and confirm answer a 4xx envelope and write nothing, unless the body is valid, in
 * which case initialize answers 202 and writes exactly one collection: CollectionInitiated and
 * the CollectionOpened it publishes. Arbitraries and setup in
 * bad-input-test-setup.ts. This file: confirm refuses any value, unknown references and fields,
 * and random bytes, leaving a pending collection untouched; GET of an unknown reference answers a
 * 4xx envelope.
 */
import * as fc from 'fast-check';
import type { PaygateClient } from '@paygate/testing';
import {
  anyJson,
  asSent,
  badInputHelpers,
  CONFIRM,
  fcOptions,
  rawGarbage,
  startBadInputPaygate,
  unknownKey,
  validMobileMoney,
  type Answer,
} from './bad-input-test-setup';
import type { InProcessPaygate } from '@paygate/standalone';

describe('bad input never writes and never fails the server (property-based)', () => {
  let paygate: InProcessPaygate;
  let client: PaygateClient;
  const { expectRefused } = badInputHelpers(() => ({ paygate, client }));

  beforeAll(async () => {
    ({ paygate, client } = await startBadInputPaygate());
  });

  afterAll(async () => {
    await paygate?.close();
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
      const key = fc.oneof(
        fc.constant('internal_reference'),
        fc.string({ maxLength: 20 }),
        fc.string({ unit: 'binary', maxLength: 20 }),
      );
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
        fc.asyncProperty(
          fc.tuple(
            unknownKey.filter((key) => key !== 'internal_reference'),
            anyJson,
          ),
          async ([key, value]) => {
            await expectRefused(CONFIRM, JSON.stringify({ internal_reference: pending, [key]: value }));
          },
        ),
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
      expect(stream.map((event) => event.type)).toEqual(['CollectionInitiated', 'collections.CollectionOpened']);
    });
  });

  describe('GET /v1/collections', () => {
    async function get(path: string): Promise<Answer> {
      const response = await fetch(`${paygate.url}${path}`, {
        headers: { 'public-key': client.merchant.publicKey, 'secret-key': client.merchant.secretKey },
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

    const lookup = fc.oneof(
      fc.string({ unit: 'binary', minLength: 1, maxLength: 64 }),
      fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 64 }),
      fc.stringMatching(/^PG[0-9A-Z]{24}$/),
      fc.stringMatching(/^[A-Za-z0-9._:/-]{1,64}$/),
    );

    it('answers an unknown internal_reference or merchant_reference with a 4xx envelope', async () => {
      await fc.assert(
        fc.asyncProperty(lookup, fc.boolean(), async (value, byMerchantReference) => {
          const path = byMerchantReference
            ? `/v1/collections?merchant_reference=${encodeURIComponent(value)}`
            : `/v1/collections/${encodeURIComponent(value)}`;
          const answer = await get(path);
          expect({
            value,
            path,
            status: answer.status >= 400 && answer.status < 500 ? '4xx' : answer.status,
            text: answer.status < 500 ? '' : answer.text,
          }).toEqual({ value, path, status: '4xx', text: '' });
          expect(answer.body).toEqual({
            code: answer.status,
            status: 'error',
            message: expect.any(String),
            data: expect.any(Object),
          });
        }),
        fcOptions(),
      );
    });
  });
});
