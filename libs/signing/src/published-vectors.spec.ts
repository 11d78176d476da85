import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { collectionSignature, payoutSignature, refundSignature } from 'paygate-node';
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
      '{"event":"payment.completed","payload":{"id":42,"merchant_reference":"tax-2025-03","internal_reference":"PGTESTREF0000001","transaction_type":"SERVICE_PAYMENT","request_currency":"UGX","request_amount":81000,"transaction_status":"COMPLETED","account_number":"2250000123456","transaction_charge":1215,"transaction_amount":81000,"customer_name":"Jane Doe","service_name":"URA","status_message":"PRN paid successfully","additional_details":{},"livemode":false}}';
    const { payload } = JSON.parse(body);
    const hmac = collectionSignature(key, payload);
    expect(hmac).toBe('0427a543db8de08a79bc86ef86a3fd0db2bcbbe653f19c0b8d4303baea228e52');
    expect(collectionSignature(key, { ...payload, transaction_status: 'FAILED' })).toBe(
      '58242b7c2ef34a363d446911da59d033b205ab830b55c2cdb5d13e0e96fa9155',
    );
    const signature = standardWebhookSignature(key, 'msg_0b6f4c1e-6a4e-4a59-9d44-2f1c3e0a7b21', 1700000000, body);
    expect(signature).toBe('v1,lTpPaA7TN007W55Ebc/D3vM2xGH+HDDJN/tSpHAABHQ=');
    expect(doc).toContain(`${body}\n\`\`\``);
    expect(doc).toContain(`hmac-signature: ${hmac}`);
    expect(doc).toContain(`webhook-signature: ${signature}`);
    expect(doc).toContain('`58242b7c2ef34a363d446911da59d033b205ab830b55c2cdb5d13e0e96fa9155`');
  });

  it('the signed refund.completed example: hmac-signature over the refund’s fields, COMPLETED or FAILED', () => {
    const body =
      '{"event":"refund.completed","payload":{"refund_reference":"refund-1001","internal_reference":"PGTESTREF0000001","merchant_reference":"order-1001","amount":20000,"currency":"UGX","status":"COMPLETED","pending_reason":null,"failure_reason":null,"reason":"Order cancelled by the customer","livemode":false,"created_at":"2026-01-01T00:00:00.000Z","updated_at":"2026-01-01T00:00:05.000Z"}}';
    const { payload } = JSON.parse(body);
    const hmac = refundSignature(key, payload);
    expect(hmac).toBe('dc0f8eaa0357f9f77890c2d3373fc7bb710db032b683b4202e3c7b7fe0dbf4b6');
    expect(refundSignature(key, { ...payload, status: 'FAILED' })).toBe(
      'dbeadac5d8d96e26f62cdcf20ae429b1806e224d3aad999f21ca56a631b099be',
    );
    const signature = standardWebhookSignature(key, 'msg_7c9e2d14-3b5a-4f60-8e21-9a0b4c6d8e13', 1700000000, body);
    expect(signature).toBe('v1,MMWCcAeyLfRykA53AG6ZEUtW7mzzp8OEPnAKTaseVIk=');
    expect(doc).toContain(`${body}\n\`\`\``);
    expect(doc).toContain(`hmac-signature: ${hmac}`);
    expect(doc).toContain(`webhook-signature: ${signature}`);
    expect(doc).toContain(`| \`${hmac}\` |`);
    expect(doc).toContain('`dbeadac5d8d96e26f62cdcf20ae429b1806e224d3aad999f21ca56a631b099be`');
  });

  it('the signed payout.completed example: hmac-signature over the payout’s fields, each final status', () => {
    const body =
      '{"event":"payout.completed","payload":{"payout_reference":"payout-1001","amount":150000,"fee":1500,"currency":"UGX","provider_code":"mtn_momo_ug","msisdn":"256772000001","recipient_name":"Jane Doe","status":"COMPLETED","failure_reason":null,"livemode":false,"created_at":"2026-01-01T00:00:00.000Z","updated_at":"2026-01-01T00:00:07.000Z"}}';
    const { payload } = JSON.parse(body);
    const hmac = payoutSignature(key, payload);
    expect(hmac).toBe('1f687567cc54b276c25b3d90ee6e00bde170f4057bd951531aa5636546476467');
    expect(payoutSignature(key, { ...payload, status: 'FAILED' })).toBe(
      'e03db8c37429195cb975fefba8f8f017d9e961a8425c69a21f91eb43aea27967',
    );
    expect(payoutSignature(key, { ...payload, status: 'REVERSED' })).toBe(
      '6dbb757334b0cb071dadd7959a7ad4ab2a5765645403eb63b26a54c177ad9aca',
    );
    const signature = standardWebhookSignature(key, 'msg_3d8a61f0-5c2e-4b7a-9e14-6f0b2c8d4a57', 1700000000, body);
    expect(signature).toBe('v1,R+G/62gN/p92EQ70LM+pSyPrloh05M+iUU+T0aTDGrQ=');
    expect(doc).toContain(`${body}\n\`\`\``);
    expect(doc).toContain(`hmac-signature: ${hmac}`);
    expect(doc).toContain(`webhook-signature: ${signature}`);
    expect(doc).toContain(`| \`${hmac}\` |`);
    expect(doc).toContain('`e03db8c37429195cb975fefba8f8f017d9e961a8425c69a21f91eb43aea27967`');
    expect(doc).toContain('`6dbb757334b0cb071dadd7959a7ad4ab2a5765645403eb63b26a54c177ad9aca`');
  });
});
