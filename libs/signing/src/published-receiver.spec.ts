import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { collectionSignature, payoutSignature, refundSignature } from 'paygate-node';
import { standardWebhookHeaders } from 'paygate-node';

type VerifyWebhook = (key: string, headers: Record<string, string>, body: string, nowSeconds?: number) => boolean;
type VerifyHmac = (
  key: string,
  callback: { event: string; payload: Record<string, unknown> },
  signature: unknown,
) => boolean;

/** The merchant-side verification code docs/webhooks.md publishes, run as a merchant would run it. */
function publishedVerifiers(): { verifyPaygateWebhook: VerifyWebhook; verifyPaygateHmac: VerifyHmac } {
  const doc = readFileSync(join(__dirname, '../../../docs/webhooks.md'), 'utf8');
  const section = doc.slice(doc.indexOf('### Verifying with `node:crypto`'));
  const code = /```js\n([\s\S]*?)```/.exec(section)?.[1];
  if (!code) throw new Error('docs/webhooks.md has no node:crypto verification block');
  const sandbox = { require, Buffer, exports: {} as Record<string, unknown> };
  runInNewContext(
    `${code}\nexports.verifyPaygateWebhook = verifyPaygateWebhook; exports.verifyPaygateHmac = verifyPaygateHmac;`,
    sandbox,
  );
  return sandbox.exports as ReturnType<typeof publishedVerifiers>;
}

describe('the receiver code in docs/webhooks.md', () => {
  const key = 'sk_test_signing_key_123';
  const { verifyPaygateWebhook, verifyPaygateHmac } = publishedVerifiers();
  const body =
    '{"event":"transaction.completed","payload":{"id":42,"internal_reference":"PGTESTREF0000001","transaction_status":"COMPLETED","merchant_reference":"order-1001"}}';
  const vectorHeaders = {
    'webhook-id': 'msg_2Nq7test',
    'webhook-timestamp': '1700000000',
    'webhook-signature': 'v1,MM4lBInLhcltgkse+p1elSf72mKCt8nsEDkGaHrN8q0=',
  };

  it('accepts the published webhook-signature vector within five minutes of its timestamp, and refuses it later', () => {
    expect(verifyPaygateWebhook(key, vectorHeaders, body, 1700000000 + 300)).toBe(true);
    expect(verifyPaygateWebhook(key, vectorHeaders, body, 1700000000 + 301)).toBe(false);
  });

  it('refuses a changed body, another key, another id and a signature of another scheme', () => {
    expect(verifyPaygateWebhook(key, vectorHeaders, body.replace('42', '43'), 1700000000)).toBe(false);
    expect(verifyPaygateWebhook('sk_test_other', vectorHeaders, body, 1700000000)).toBe(false);
    expect(verifyPaygateWebhook(key, { ...vectorHeaders, 'webhook-id': 'msg_other' }, body, 1700000000)).toBe(false);
    expect(
      verifyPaygateWebhook(
        key,
        { ...vectorHeaders, 'webhook-signature': vectorHeaders['webhook-signature'].replace('v1,', 'v2,') },
        body,
        1700000000,
      ),
    ).toBe(false);
    expect(
      verifyPaygateWebhook(key, { ...vectorHeaders, 'webhook-timestamp': '1700000000abc' }, body, 1700000000),
    ).toBe(false);
  });

  it('accepts what Paygate sends, including a non-ASCII body and a rotated key list', () => {
    const sent = '{"event":"transaction.completed","payload":{"customer_name":"Ñandú Ōkami 😀"}}';
    const headers = standardWebhookHeaders(key, 'msg_receiver', 1700000100, sent);
    expect(verifyPaygateWebhook(key, { ...headers }, sent, 1700000100)).toBe(true);
    expect(
      verifyPaygateWebhook(
        key,
        { ...headers, 'webhook-signature': `v1,c29tZXRoaW5nIGVsc2U= ${headers['webhook-signature']}` },
        sent,
        1700000100,
      ),
    ).toBe(true);
  });

  it('checks hmac-signature as Paygate computes it, in either case, and refuses a malformed one', () => {
    const payload = {
      id: 42,
      internal_reference: 'PGTESTREF0000001',
      transaction_status: 'COMPLETED',
      merchant_reference: 'order-1001',
    };
    const signature = collectionSignature(key, payload);
    const callback = (event: string, fields: Record<string, unknown>) => ({ event, payload: fields });
    expect(
      verifyPaygateHmac(
        key,
        callback('transaction.completed', payload),
        'e1fe7349b3a3b9f7253cb84fdfde6fd90f67d33aa50e5a396efb1716562fb4c7',
      ),
    ).toBe(true);
    expect(verifyPaygateHmac(key, callback('payment.completed', payload), signature.toUpperCase())).toBe(true);
    expect(
      verifyPaygateHmac(
        key,
        callback('transaction.completed', { ...payload, transaction_status: 'FAILED' }),
        signature,
      ),
    ).toBe(false);
    expect(verifyPaygateHmac(key, callback('transaction.completed', payload), `${signature.slice(0, 62)}zz`)).toBe(
      false,
    );
    expect(verifyPaygateHmac(key, callback('transaction.completed', payload), undefined)).toBe(false);
  });

  it('checks a refund callback’s hmac-signature over its own fields, as Paygate computes it', () => {
    const refund = {
      refund_reference: 'refund-1001',
      internal_reference: 'PGTESTREF0000001',
      status: 'COMPLETED',
      merchant_reference: 'order-1001',
    };
    const signature = refundSignature(key, refund);
    expect(signature).toBe('dc0f8eaa0357f9f77890c2d3373fc7bb710db032b683b4202e3c7b7fe0dbf4b6');
    expect(verifyPaygateHmac(key, { event: 'refund.completed', payload: refund }, signature)).toBe(true);
    expect(
      verifyPaygateHmac(key, { event: 'refund.failed', payload: { ...refund, status: 'FAILED' } }, signature),
    ).toBe(false);
    expect(verifyPaygateHmac(key, { event: 'transaction.completed', payload: refund }, signature)).toBe(false);
  });

  it('checks a payout callback’s hmac-signature over its own fields, as Paygate computes it', () => {
    const payout = {
      payout_reference: 'payout-1001',
      status: 'REVERSED',
      provider_code: 'mtn_momo_ug',
      msisdn: '256772000001',
    };
    const signature = payoutSignature(key, payout);
    expect(signature).toBe('6dbb757334b0cb071dadd7959a7ad4ab2a5765645403eb63b26a54c177ad9aca');
    expect(verifyPaygateHmac(key, { event: 'payout.reversed', payload: payout }, signature)).toBe(true);
    expect(
      verifyPaygateHmac(key, { event: 'payout.completed', payload: { ...payout, status: 'COMPLETED' } }, signature),
    ).toBe(false);
    expect(verifyPaygateHmac(key, { event: 'refund.completed', payload: payout }, signature)).toBe(false);
  });
});
