import { randomUUID } from 'node:crypto';
import {
  DISBURSEMENTS_INTEGRATION_EVENTS as DISBURSEMENTS,
  moneyOutStream,
  type PayoutSettledV1,
  type PublishedPayoutV1,
} from '@paygate/contracts';
import type { InProcessPaygate } from '@paygate/standalone';
import {
  CallbackReceiver,
  eventually,
  PaygateClient,
  publishedPayout,
  TEST_ADMIN_TOKEN,
  uniqueReference,
  type ReceivedCallback,
} from '@paygate/testing';
import { startCallbackTestPaygate } from '../standalone/test-paygate';

/**
 * Payout callbacks end to end in the standalone layout, from the published event on: a payout's
 * disbursements.PayoutSettled, appended to its stream as the disbursements context publishes it,
 * reaches the merchant's payouts callback URL (and no other) as payout.completed, payout.failed
 * or payout.reversed, verified with the merchant's signing key as the merchant package verifies
 * it, listed in the callback log and resent under payout:<payout_reference>. The payouts API
 * that makes these events is exercised by its own suites.
 */
describe('payout callbacks', () => {
  let paygate: InProcessPaygate;
  let receiver: CallbackReceiver;
  let client: PaygateClient;

  beforeAll(async () => {
    paygate = await startCallbackTestPaygate();
    receiver = await CallbackReceiver.start();
    client = await PaygateClient.withNewMerchant(paygate.url, TEST_ADMIN_TOKEN, 'Paying-out merchant', receiver.url());
    const patched = await fetch(`${paygate.url}/admin/v1/merchants/${client.merchant.id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ payouts_callback_url: receiver.url('/payouts') }),
    });
    expect(patched.status).toBe(200);
  });

  afterAll(async () => {
    await receiver?.close();
    await paygate?.close();
  });

  /** Publishes that the payout `reference` reached `status`, as disbursements does at the end of its stream. */
  async function settle(
    reference: string,
    status: PublishedPayoutV1['status'],
    overrides: Partial<PublishedPayoutV1> = {},
  ) {
    const data: PayoutSettledV1 = {
      payout: publishedPayout({ merchantId: client.merchant.id, payoutReference: reference, status, ...overrides }),
      settledAt: new Date().toISOString(),
    };
    const id = randomUUID();
    await paygate.infrastructure.store.appendToStream(moneyOutStream('PAYOUT', client.merchant.id, reference), [
      { id, type: DISBURSEMENTS.payoutSettled, data, metadata: { schemaVersion: 1 } },
    ]);
    return `msg_${id}`;
  }

  const about = (reference: string) =>
    receiver.received.filter((callback) => callback.payload.payout_reference === reference);

  async function waitFor(reference: string, count: number): Promise<ReceivedCallback[]> {
    return eventually(
      () => (about(reference).length >= count ? about(reference) : undefined),
      30_000,
      `${count} callbacks of ${reference}`,
    );
  }

  it('sends payout.completed to the payouts callback URL only, with the payout record, signed with the signing key', async () => {
    const reference = uniqueReference('payout');
    const webhookId = await settle(reference, 'COMPLETED');

    const [completed] = await waitFor(reference, 1);
    expect(completed).toMatchObject({ path: '/payouts', event: 'payout.completed' });
    expect(completed.headers['webhook-id']).toBe(webhookId);
    expect(CallbackReceiver.verify(completed, client.merchant.signingKey)).toBe(true);
    expect(CallbackReceiver.verify(completed, 'sk_test_not_this_merchants_key')).toBe(false);
    expect(completed.payload).toEqual({
      payout_reference: reference,
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
    });
    expect(receiver.received.filter((callback) => callback.path !== '/payouts')).toEqual([]);
  });

  it('sends payout.reversed after the payout.completed it takes back, and payout.failed for a payout never approved', async () => {
    const reversedOne = uniqueReference('payout');
    const cancelledOne = uniqueReference('payout');
    await settle(reversedOne, 'COMPLETED');
    await settle(reversedOne, 'REVERSED', { failureReason: 'reversed by the provider' });
    await settle(cancelledOne, 'CANCELLED', { failureReason: 'not approved within 24 h', recipientName: null });

    const callbacks = await waitFor(reversedOne, 2);
    expect(callbacks.map((callback) => callback.event)).toEqual(['payout.completed', 'payout.reversed']);
    expect(callbacks[1].payload).toMatchObject({ status: 'REVERSED', failure_reason: 'reversed by the provider' });
    const [cancelled] = await waitFor(cancelledOne, 1);
    expect(cancelled.event).toBe('payout.failed');
    expect(cancelled.payload).toMatchObject({ status: 'CANCELLED', failure_reason: 'not approved within 24 h' });
    for (const callback of [...callbacks, cancelled])
      expect(CallbackReceiver.verify(callback, client.merchant.signingKey)).toBe(true);
  });

  it('lists a payout’s callbacks under payout:<payout_reference>, for the merchant and the operator, and resends them with their webhook ids', async () => {
    const reference = uniqueReference('payout');
    const webhookId = await settle(reference, 'FAILED', { failureReason: 'the provider refused the payout' });
    await waitFor(reference, 1);

    const key = `payout:${reference}`;
    const listed = await eventually(
      async () => {
        const { body } = await client.request<{
          deliveries: { webhook_id: string; internal_reference: string; state: string }[];
        }>('GET', `/v1/callbacks?internal_reference=${encodeURIComponent(key)}`, { secret: true });
        const [delivery, ...others] = body.data.deliveries;
        expect(others).toEqual([]);
        return delivery?.state === 'delivered' ? delivery : undefined;
      },
      10_000,
      'the delivered payout callback in the log',
    );
    expect(listed).toMatchObject({ webhook_id: webhookId, internal_reference: key, event: 'payout.failed' });

    const operators = await fetch(`${paygate.url}/admin/v1/deliveries?internal_reference=${encodeURIComponent(key)}`, {
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    });
    const { data } = (await operators.json()) as { data: { deliveries: { webhook_id: string }[] } };
    expect([operators.status, data.deliveries.map((delivery) => delivery.webhook_id)]).toEqual([200, [webhookId]]);

    const resent = await client.request('POST', '/v1/callbacks/resend', {
      body: { internal_reference: key },
      secret: true,
    });
    expect(resent).toMatchObject({ status: 202, body: { data: { internal_reference: key, deliveries: 1 } } });
    const [first, again] = await waitFor(reference, 2);
    expect(again.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(again.body).toBe(first.body);
    expect(CallbackReceiver.verify(again, client.merchant.signingKey)).toBe(true);
  });
});
