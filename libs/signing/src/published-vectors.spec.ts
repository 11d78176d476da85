import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { collectionSignature } from 'paygate-node';
import { standardWebhookSignature } from 'paygate-node';

/** The vectors docs/webhooks.md publishes for merchants must be what Paygate computes. */
describe('published test vectors (docs/webhooks.md)', () => {
  const doc = readFileSync(join(__dirname, '../../../docs/webhooks.md'), 'utf8');
  const key = 'sk_test_signing_key_123';

  it('hmac-signature', () => {
    const expected = collectionSignature(key, {
      id: 42,
      internal_reference: 'PGTESTREF0000001',
      transaction_status: 'COMPLETED',
      merchant_reference: 'order-1001',
    });
    expect(expected).toBe('e1fe7349b3a3b9f7253cb84fdfde6fd90f67d33aa50e5a396efb1716562fb4c7');
    expect(doc).toContain(`\`${expected}\``);
  });

  it('webhook-signature', () => {
    const body =
      '{"event":"transaction.completed","payload":{"id":42,"internal_reference":"PGTESTREF0000001","transaction_status":"COMPLETED","merchant_reference":"order-1001"}}';
    const expected = standardWebhookSignature(key, 'msg_2Nq7test', 1700000000, body);
    expect(expected).toBe('v1,MM4lBInLhcltgkse+p1elSf72mKCt8nsEDkGaHrN8q0=');
    expect(doc).toContain(`\`${expected}\``);
    expect(doc).toContain(`body \`${body}\``);
  });

  it('the signed payment.completed example: hmac-signature over the payment payload, COMPLETED or FAILED', () => {
    const body =
      '{"event":"payment.completed","payload":{"id":42,"merchant_reference":"tax-2025-03","internal_reference":"PGTESTREF0000001","transaction_type":"SERVICE_PAYMENT","request_currency":"UGX","request_amount":81000,"transaction_status":"COMPLETED","account_number":"2250000123456","transaction_charge":1215,"transaction_amount":81000,"customer_name":"Jane Doe","service_name":"URA","status_message":"PRN paid successfully","additional_details":{}}}';
    const { payload } = JSON.parse(body);
    const hmac = collectionSignature(key, payload);
    expect(hmac).toBe('0427a543db8de08a79bc86ef86a3fd0db2bcbbe653f19c0b8d4303baea228e52');
    expect(collectionSignature(key, { ...payload, transaction_status: 'FAILED' })).toBe(
      '58242b7c2ef34a363d446911da59d033b205ab830b55c2cdb5d13e0e96fa9155',
    );
    const signature = standardWebhookSignature(key, 'msg_0b6f4c1e-6a4e-4a59-9d44-2f1c3e0a7b21', 1700000000, body);
    expect(signature).toBe('v1,ReNjf/uSmnt0Hd/mvERvoJS4iVVzUjIOLnGkmRhvpgU=');
    expect(doc).toContain(`${body}\n\`\`\``);
    expect(doc).toContain(`hmac-signature: ${hmac}`);
    expect(doc).toContain(`webhook-signature: ${signature}`);
    expect(doc).toContain('`58242b7c2ef34a363d446911da59d033b205ab830b55c2cdb5d13e0e96fa9155`');
  });
});
