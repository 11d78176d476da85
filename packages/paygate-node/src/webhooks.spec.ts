import { payoutSignature, refundSignature } from './hmac-signature';
import { standardWebhookSignature } from './standard-webhooks';
import { constructEvent, WebhookVerificationError, type WebhookVerificationFailure } from './webhooks';

/** docs/webhooks.md's test vectors: what a merchant checks its integration against. */
const KEY = 'sk_test_signing_key_123';
const BODY =
  '{"event":"transaction.completed","payload":{"id":42,"internal_reference":"PGTESTREF0000001","transaction_status":"COMPLETED","merchant_reference":"order-1001"}}';
const HEADERS = {
  'webhook-id': 'msg_2Nq7test',
  'webhook-timestamp': '1700000000',
  'webhook-signature': 'v1,MM4lBInLhcltgkse+p1elSf72mKCt8nsEDkGaHrN8q0=',
  'hmac-signature': 'e1fe7349b3a3b9f7253cb84fdfde6fd90f67d33aa50e5a396efb1716562fb4c7',
};
const AT_SIGNING = { nowSeconds: 1_700_000_000 };

function refusal(attempt: () => unknown): WebhookVerificationFailure | 'accepted' {
  try {
    attempt();
    return 'accepted';
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    return (error as WebhookVerificationError).reason;
  }
}

describe('constructEvent', () => {
  it("returns the callback of the docs' test vector, verified by both signatures", () => {
    expect(constructEvent(BODY, HEADERS, KEY, AT_SIGNING)).toEqual({
      id: 'msg_2Nq7test',
      type: 'transaction.completed',
      timestamp: new Date('2023-11-14T22:13:20.000Z'),
      payload: {
        id: 42,
        internal_reference: 'PGTESTREF0000001',
        transaction_status: 'COMPLETED',
        merchant_reference: 'order-1001',
      },
    });
    expect(constructEvent(Buffer.from(BODY), HEADERS, KEY, AT_SIGNING).id).toBe('msg_2Nq7test');
  });

  it('takes headers as Node, Express or fetch hand them over', () => {
    const shouted = Object.fromEntries(Object.entries(HEADERS).map(([name, value]) => [name.toUpperCase(), value]));
    expect(constructEvent(BODY, shouted, KEY, AT_SIGNING).type).toBe('transaction.completed');
    expect(constructEvent(BODY, new Headers(HEADERS), KEY, AT_SIGNING).type).toBe('transaction.completed');
  });

  it('accepts a rotation list in which one signature matches', () => {
    const rotated = { ...HEADERS, 'webhook-signature': `v1,${'A'.repeat(43)}= ${HEADERS['webhook-signature']}` };
    expect(refusal(() => constructEvent(BODY, rotated, KEY, AT_SIGNING))).toBe('accepted');
  });

  it('refuses a changed body, another key, a missing header and a replay outside the tolerance, saying which', () => {
    expect(refusal(() => constructEvent(BODY.replace('42', '43'), HEADERS, KEY, AT_SIGNING))).toBe(
      'no_matching_signature',
    );
    expect(refusal(() => constructEvent(BODY, HEADERS, 'sk_test_another_key', AT_SIGNING))).toBe(
      'no_matching_signature',
    );
    expect(refusal(() => constructEvent(BODY, { ...HEADERS, 'webhook-id': undefined }, KEY, AT_SIGNING))).toBe(
      'missing_headers',
    );
    expect(
      refusal(() => constructEvent(BODY, { ...HEADERS, 'webhook-timestamp': '1700000000.5' }, KEY, AT_SIGNING)),
    ).toBe('bad_timestamp');
    expect(refusal(() => constructEvent(BODY, HEADERS, KEY, { nowSeconds: 1_700_000_301 }))).toBe(
      'timestamp_outside_tolerance',
    );
    expect(refusal(() => constructEvent(BODY, HEADERS, KEY))).toBe('timestamp_outside_tolerance');
  });

  it('refuses an hmac-signature that does not match the payload, though the body is signed', () => {
    const forged = { ...HEADERS, 'hmac-signature': '0'.repeat(64) };
    expect(refusal(() => constructEvent(BODY, forged, KEY, AT_SIGNING))).toBe('bad_hmac_signature');
  });

  it('refuses a signed body that is not a callback', () => {
    const body = '["not", "a", "callback"]';
    const headers = {
      ...HEADERS,
      'webhook-signature': standardWebhookSignature(KEY, HEADERS['webhook-id'], 1_700_000_000, body),
    };
    expect(refusal(() => constructEvent(body, headers, KEY, AT_SIGNING))).toBe('malformed_body');
  });

  describe('a refund callback', () => {
    const refund = {
      refund_reference: 'refund-1001',
      internal_reference: 'PGTESTREF0000001',
      merchant_reference: 'order-1001',
      amount: 20000,
      currency: 'UGX',
      status: 'COMPLETED',
      pending_reason: null,
      failure_reason: null,
      reason: null,
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:05.000Z',
    };
    const signed = (payload: object, event = 'refund.completed') => {
      const body = JSON.stringify({ event, payload });
      return {
        body,
        headers: {
          'webhook-id': 'msg_refund',
          'webhook-timestamp': '1700000000',
          'webhook-signature': standardWebhookSignature(KEY, 'msg_refund', 1_700_000_000, body),
        },
      };
    };

    it('verifies its hmac-signature over refund_reference, internal_reference, status and merchant_reference', () => {
      const { body, headers } = signed(refund);
      // docs/webhooks.md's refund vector.
      const hmac = 'dc0f8eaa0357f9f77890c2d3373fc7bb710db032b683b4202e3c7b7fe0dbf4b6';
      expect(refundSignature(KEY, refund)).toBe(hmac);
      expect(constructEvent(body, { ...headers, 'hmac-signature': hmac }, KEY, AT_SIGNING)).toEqual({
        id: 'msg_refund',
        type: 'refund.completed',
        timestamp: new Date('2023-11-14T22:13:20.000Z'),
        payload: refund,
      });
    });

    it('refuses an hmac-signature of another refund, another status, or over the collection fields', () => {
      const { body, headers } = signed(refund);
      const failed = refundSignature(KEY, { ...refund, status: 'FAILED' });
      const other = refundSignature(KEY, { ...refund, refund_reference: 'refund-1002' });
      const collectionStyle = 'e1fe7349b3a3b9f7253cb84fdfde6fd90f67d33aa50e5a396efb1716562fb4c7';
      for (const hmac of [failed, other, collectionStyle])
        expect(refusal(() => constructEvent(body, { ...headers, 'hmac-signature': hmac }, KEY, AT_SIGNING))).toBe(
          'bad_hmac_signature',
        );
    });

    it('chooses the fields by the event: a refund payload sent as a collection event does not verify with the refund signature', () => {
      const { body, headers } = signed(refund, 'transaction.completed');
      const hmac = refundSignature(KEY, refund);
      expect(refusal(() => constructEvent(body, { ...headers, 'hmac-signature': hmac }, KEY, AT_SIGNING))).toBe(
        'bad_hmac_signature',
      );
    });
  });

  describe('a payout callback', () => {
    const payout = {
      payout_reference: 'payout-1001',
      amount: 150000,
      fee: 1500,
      currency: 'UGX',
      provider_code: 'mtn_momo_ug',
      msisdn: '256772000001',
      recipient_name: 'Jane Doe',
      status: 'COMPLETED',
      failure_reason: null,
      livemode: false,
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:07.000Z',
    };
    const signed = (payload: object, event = 'payout.completed') => {
      const body = JSON.stringify({ event, payload });
      return {
        body,
        headers: {
          'webhook-id': 'msg_payout',
          'webhook-timestamp': '1700000000',
          'webhook-signature': standardWebhookSignature(KEY, 'msg_payout', 1_700_000_000, body),
        },
      };
    };

    it('verifies its hmac-signature over payout_reference, status, provider_code and msisdn', () => {
      const { body, headers } = signed(payout);
      // docs/webhooks.md's payout vector.
      const hmac = '1f687567cc54b276c25b3d90ee6e00bde170f4057bd951531aa5636546476467';
      expect(payoutSignature(KEY, payout)).toBe(hmac);
      expect(constructEvent(body, { ...headers, 'hmac-signature': hmac }, KEY, AT_SIGNING)).toEqual({
        id: 'msg_payout',
        type: 'payout.completed',
        timestamp: new Date('2023-11-14T22:13:20.000Z'),
        payload: payout,
      });
    });

    it('refuses an hmac-signature of another status, another number or another payout', () => {
      const { body, headers } = signed(payout);
      const reversed = payoutSignature(KEY, { ...payout, status: 'REVERSED' });
      const elsewhere = payoutSignature(KEY, { ...payout, msisdn: '256772000009' });
      const other = payoutSignature(KEY, { ...payout, payout_reference: 'payout-1002' });
      for (const hmac of [reversed, elsewhere, other])
        expect(refusal(() => constructEvent(body, { ...headers, 'hmac-signature': hmac }, KEY, AT_SIGNING))).toBe(
          'bad_hmac_signature',
        );
    });
  });
});
