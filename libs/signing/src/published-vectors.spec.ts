import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { collectionSignature } from './collection-signature';
import { standardWebhookSignature } from './standard-webhooks';

/** The vectors docs/webhooks.md publishes for merchants must be what Paygate computes. */
describe('published test vectors (docs/webhooks.md)', () => {
  const doc = readFileSync(join(__dirname, '../../../docs/webhooks.md'), 'utf8');
  const key = 'sk_test_signing_key_123';

  it('hmac-signature', () => {
    const expected = collectionSignature(key, { id: 42, internal_reference: 'PGTESTREF0000001', transaction_status: 'COMPLETED', merchant_reference: 'order-1001' });
    expect(expected).toBe('e1fe7349b3a3b9f7253cb84fdfde6fd90f67d33aa50e5a396efb1716562fb4c7');
    expect(doc).toContain(`\`${expected}\``);
  });

  it('webhook-signature', () => {
    const body = '{"event":"transaction.completed","payload":{"id":42,"internal_reference":"PGTESTREF0000001","transaction_status":"COMPLETED","merchant_reference":"order-1001"}}';
    const expected = standardWebhookSignature(key, 'msg_2Nq7test', 1700000000, body);
    expect(expected).toBe('v1,MM4lBInLhcltgkse+p1elSf72mKCt8nsEDkGaHrN8q0=');
    expect(doc).toContain(`\`${expected}\``);
    expect(doc).toContain(`body \`${body}\``);
  });
});
