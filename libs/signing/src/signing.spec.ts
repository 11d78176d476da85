import { Webhook } from 'standardwebhooks';
import {
  CollectionSignatureFields,
  collectionSignature,
  signedRedirectUrl,
  standardWebhookHeaders,
  standardWebhookSignature,
  verifyCollectionSignature,
  verifyStandardWebhook,
} from './index';

// Published test vector: computed independently with
//   printf '%s' '42:PGTESTREF0000001:COMPLETED:order-1001' | openssl dgst -sha256 -hmac 'sk_test_signing_key_123'
const KEY = 'sk_test_signing_key_123';
const RECORD: CollectionSignatureFields = {
  id: 42,
  internal_reference: 'PGTESTREF0000001',
  transaction_status: 'COMPLETED',
  merchant_reference: 'order-1001',
};
const VECTOR = 'e1fe7349b3a3b9f7253cb84fdfde6fd90f67d33aa50e5a396efb1716562fb4c7';

describe('collectionSignature', () => {
  it('matches the published test vector', () => {
    expect(collectionSignature(KEY, RECORD)).toBe(VECTOR);
  });

  it('treats a string id like the number', () => {
    expect(collectionSignature(KEY, { ...RECORD, id: '42' })).toBe(VECTOR);
  });

  it('keys with the UTF-8 bytes of the signing key (openssl vector)', () => {
    expect(collectionSignature('clé-secrète-🔑', RECORD)).toBe(
      '91bf4e5c7c342965a4a517433bf8c5117857cad691c840785fad03fbab4c48e2',
    );
  });

  it('is lowercase hex', () => {
    expect(collectionSignature('another key', { ...RECORD, id: 7 })).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('verifyCollectionSignature', () => {
  it('accepts the vector, in either case', () => {
    expect(verifyCollectionSignature(KEY, RECORD, VECTOR)).toBe(true);
    expect(verifyCollectionSignature(KEY, RECORD, VECTOR.toUpperCase())).toBe(true);
  });

  it.each<[string, Partial<CollectionSignatureFields>]>([
    ['id', { id: 43 }],
    ['internal_reference', { internal_reference: 'PGTESTREF0000002' }],
    ['transaction_status', { transaction_status: 'FAILED' }],
    ['merchant_reference', { merchant_reference: 'order-1002' }],
  ])('rejects a tampered %s', (_field, change) => {
    const tampered = { ...RECORD, ...change };
    expect(verifyCollectionSignature(KEY, tampered, VECTOR)).toBe(false);
    expect(collectionSignature(KEY, tampered)).not.toBe(VECTOR);
  });

  it('rejects a different key', () => {
    expect(verifyCollectionSignature('sk_test_signing_key_124', RECORD, VECTOR)).toBe(false);
  });

  it.each([
    ['empty', ''],
    ['truncated', VECTOR.slice(0, 63)],
    ['one byte short', VECTOR.slice(0, 62)],
    ['too long', `${VECTOR}00`],
    ['non-hex', `${VECTOR.slice(0, 63)}g`],
    ['hex with junk that Buffer would skip', `${VECTOR.slice(0, 62)}zz`],
    ['surrounding whitespace', ` ${VECTOR}`],
    ['one flipped digit', `${VECTOR.slice(0, 63)}${VECTOR.endsWith('7') ? '8' : '7'}`],
    ['base64 instead of hex', Buffer.from(VECTOR, 'hex').toString('base64')],
  ])('rejects a signature that is %s', (_label, signature) => {
    expect(verifyCollectionSignature(KEY, RECORD, signature)).toBe(false);
  });

  it('returns false for a non-string signature from untyped input', () => {
    expect(verifyCollectionSignature(KEY, RECORD, undefined as unknown as string)).toBe(false);
  });
});

describe('signedRedirectUrl', () => {
  const redirect = { ...RECORD, status_message: 'Payment completed' };

  it('keeps the merchant query and appends the signed outcome', () => {
    expect(signedRedirectUrl('https://shop.example/return?order=7', redirect, KEY)).toBe(
      'https://shop.example/return?order=7&id=42&merchant_reference=order-1001' +
        '&internal_reference=PGTESTREF0000001&transaction_status=COMPLETED' +
        `&status_message=Payment+completed&hmac_signature=${VECTOR}`,
    );
  });

  it('works without an existing query and keeps the fragment', () => {
    const url = new URL(signedRedirectUrl('https://shop.example/return#done', redirect, KEY));
    expect(url.hash).toBe('#done');
    expect(url.pathname).toBe('/return');
    expect([...url.searchParams.keys()]).toEqual([
      'id',
      'merchant_reference',
      'internal_reference',
      'transaction_status',
      'status_message',
      'hmac_signature',
    ]);
  });

  it('replaces merchant parameters that clash with ours, duplicates included', () => {
    const url = new URL(
      signedRedirectUrl(
        'https://shop.example/r?id=1&order=7&hmac_signature=forged&id=2&transaction_status=X',
        redirect,
        KEY,
      ),
    );
    expect(url.searchParams.getAll('id')).toEqual(['42']);
    expect(url.searchParams.getAll('hmac_signature')).toEqual([VECTOR]);
    expect(url.searchParams.getAll('transaction_status')).toEqual(['COMPLETED']);
    expect(url.searchParams.get('order')).toBe('7');
  });

  it('encodes awkward values so they round-trip and still verify', () => {
    const awkward = {
      id: 'a&b=c',
      internal_reference: 'PG REF/1?x',
      transaction_status: 'FAILED',
      merchant_reference: 'ordre #12 + élan',
      status_message: 'Insufficient funds & more=yes',
    };
    const params = new URL(signedRedirectUrl('https://shop.example/r?order=7', awkward, KEY)).searchParams;
    const received = {
      id: params.get('id') ?? '',
      internal_reference: params.get('internal_reference') ?? '',
      transaction_status: params.get('transaction_status') ?? '',
      merchant_reference: params.get('merchant_reference') ?? '',
    };
    expect(received).toEqual({
      id: 'a&b=c',
      internal_reference: awkward.internal_reference,
      transaction_status: 'FAILED',
      merchant_reference: awkward.merchant_reference,
    });
    expect(params.get('status_message')).toBe(awkward.status_message);
    expect(verifyCollectionSignature(KEY, received, params.get('hmac_signature') ?? '')).toBe(true);
  });

  it('throws on a relative or malformed URL', () => {
    expect(() => signedRedirectUrl('/return?order=7', redirect, KEY)).toThrow(
      'Invalid redirect URL: "/return?order=7"',
    );
    expect(() => signedRedirectUrl('not a url', redirect, KEY)).toThrow(TypeError);
  });
});

describe('Standard Webhooks', () => {
  const BODY = '{"event":"collection.completed","id":42}';
  const MSG_ID = 'msg_2Nq7test';
  const TS = 1700000000;
  // printf '%s' 'msg_2Nq7test.1700000000.{"event":"collection.completed","id":42}' \
  //   | openssl dgst -sha256 -hmac 'sk_test_signing_key_123' -binary | base64
  const WEBHOOK_VECTOR = 'v1,g9D0vGE09BzrVAnYSaDOViZltSZq8F7rSpIAwomed0M=';
  const nowSeconds = () => Math.floor(Date.now() / 1000);

  it('matches an openssl test vector', () => {
    expect(standardWebhookSignature(KEY, MSG_ID, TS, BODY)).toBe(WEBHOOK_VECTOR);
  });

  it('builds the three headers', () => {
    expect(standardWebhookHeaders(KEY, MSG_ID, TS, BODY)).toEqual({
      'webhook-id': MSG_ID,
      'webhook-timestamp': '1700000000',
      'webhook-signature': WEBHOOK_VECTOR,
    });
  });

  it.each([1.5, -1, NaN, 1e21])('refuses timestamp %p', (ts) => {
    expect(() => standardWebhookSignature(KEY, MSG_ID, ts, BODY)).toThrow(RangeError);
  });

  describe('against the standardwebhooks package', () => {
    it('its verify() accepts our headers', () => {
      const headers = standardWebhookHeaders(KEY, MSG_ID, nowSeconds(), BODY);
      expect(new Webhook(KEY, { format: 'raw' }).verify(BODY, headers)).toEqual(JSON.parse(BODY));
    });

    it.each([
      [KEY, 'msg_1', 1700000000, BODY],
      ['k', 'msg_2', 0, ''],
      ['whsec_not_base64_here', 'evt.with.dots', 1234567890, 'plain text\nwith newline'],
      [KEY, 'msg_3', 1700000001, '{"amount":81000,"currency":"UGX","note":"é ✓"}'],
    ])('its sign() equals ours for key %p, id %p, ts %p', (key, id, ts, body) => {
      const theirs = new Webhook(key, { format: 'raw' }).sign(id, new Date(ts * 1000), body);
      expect(standardWebhookSignature(key, id, ts, body)).toBe(theirs);
    });

    it('agrees on a non-ASCII key when given its UTF-8 bytes', () => {
      // The package's raw string mode takes char codes, not UTF-8, so hand it the bytes.
      const key = 'clé-🔑';
      const webhook = new Webhook(new TextEncoder().encode(key), { format: 'raw' });
      const theirs = webhook.sign(MSG_ID, new Date(TS * 1000), BODY);
      expect(standardWebhookSignature(key, MSG_ID, TS, BODY)).toBe(theirs);
    });

    it('we verify what it signs', () => {
      const now = nowSeconds();
      const signature = new Webhook(KEY, { format: 'raw' }).sign(MSG_ID, new Date(now * 1000), BODY);
      const headers = { 'webhook-id': MSG_ID, 'webhook-timestamp': String(now), 'webhook-signature': signature };
      expect(verifyStandardWebhook(KEY, headers, BODY)).toBe(true);
    });
  });

  describe('verifyStandardWebhook', () => {
    const headers = standardWebhookHeaders(KEY, MSG_ID, TS, BODY);
    const verify = (h: Record<string, string | undefined>, body = BODY, now = TS) =>
      verifyStandardWebhook(KEY, h, body, { nowSeconds: now });

    it('accepts valid headers', () => {
      expect(verify(headers)).toBe(true);
    });

    it('uses the system clock by default', () => {
      const now = nowSeconds();
      expect(verifyStandardWebhook(KEY, standardWebhookHeaders(KEY, MSG_ID, now, BODY), BODY)).toBe(true);
      expect(verifyStandardWebhook(KEY, headers, BODY)).toBe(false); // TS is long past
    });

    it('matches header names case-insensitively', () => {
      expect(
        verify({
          'Webhook-Id': headers['webhook-id'],
          'WEBHOOK-TIMESTAMP': headers['webhook-timestamp'],
          'webhook-Signature': headers['webhook-signature'],
        }),
      ).toBe(true);
    });

    it('accepts any matching entry of a space-separated list', () => {
      const other = standardWebhookSignature('old key', MSG_ID, TS, BODY);
      for (const list of [
        `${other} ${WEBHOOK_VECTOR}`,
        `${WEBHOOK_VECTOR} ${other}`,
        `v2,abc ${WEBHOOK_VECTOR}`,
        `v1a,xyz  ${WEBHOOK_VECTOR}`,
      ]) {
        expect(verify({ ...headers, 'webhook-signature': list })).toBe(true);
      }
      expect(verify({ ...headers, 'webhook-signature': `${other} v1,bogus` })).toBe(false);
    });

    it.each<[number, boolean]>([
      [TS, true],
      [TS + 300, true],
      [TS - 300, true],
      [TS + 301, false],
      [TS - 301, false],
    ])('with tolerance 300 at now=%p accepts=%p', (now, accepted) => {
      expect(verify(headers, BODY, now)).toBe(accepted);
    });

    it('honours a custom tolerance', () => {
      expect(verifyStandardWebhook(KEY, headers, BODY, { nowSeconds: TS + 30, toleranceSeconds: 10 })).toBe(false);
      expect(verifyStandardWebhook(KEY, headers, BODY, { nowSeconds: TS + 30, toleranceSeconds: 30 })).toBe(true);
    });

    it.each<[string, Record<string, string | undefined>, string]>([
      ['a tampered body', headers, BODY.replace('42', '43')],
      ['a different webhook-id', { ...headers, 'webhook-id': 'msg_other' }, BODY],
      ['a shifted timestamp (signed value differs)', { ...headers, 'webhook-timestamp': String(TS + 1) }, BODY],
      ['a timestamp with trailing junk', { ...headers, 'webhook-timestamp': `${TS}abc` }, BODY],
      ['a non-numeric timestamp', { ...headers, 'webhook-timestamp': 'soon' }, BODY],
      ['a missing signature', { ...headers, 'webhook-signature': undefined }, BODY],
      ['a missing id', { ...headers, 'webhook-id': undefined }, BODY],
      ['an empty id', { ...headers, 'webhook-id': '' }, BODY],
      ['an empty timestamp', { ...headers, 'webhook-timestamp': '' }, BODY],
      ['an unversioned signature', { ...headers, 'webhook-signature': WEBHOOK_VECTOR.slice(3) }, BODY],
      ['a wrong version tag', { ...headers, 'webhook-signature': WEBHOOK_VECTOR.replace('v1,', 'v2,') }, BODY],
      ['base64 junk Node would ignore', { ...headers, 'webhook-signature': `${WEBHOOK_VECTOR}!` }, BODY],
    ])('rejects %s', (_label, h, body) => {
      expect(verify(h, body)).toBe(false);
    });

    it('rejects a signature made with another key', () => {
      expect(verifyStandardWebhook('sk_test_signing_key_124', headers, BODY, { nowSeconds: TS })).toBe(false);
    });
  });
});
