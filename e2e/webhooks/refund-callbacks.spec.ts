import {
  CallbackReceiver,
  eventually,
  mobileMoneyRequest,
  PaygateClient,
  TEST_ADMIN_TOKEN,
  uniqueReference,
} from '@paygate/testing';
import type { InProcessPaygate } from '@paygate/standalone';
import { startCallbackTestPaygate } from '../standalone/test-paygate';

/**
 * Refund callbacks end to end in the standalone layout: a refund of a sandbox collection reaches
 * the merchant's collection callback URL as refund.completed (or refund.failed when the sandbox
 * provider refuses it), after the collection's transaction.completed, verified with the merchant's
 * signing key as the merchant package verifies it.
 */
describe('refund callbacks', () => {
  let paygate: InProcessPaygate;
  let receiver: CallbackReceiver;
  let client: PaygateClient;

  beforeAll(async () => {
    paygate = await startCallbackTestPaygate();
    receiver = await CallbackReceiver.start();
    client = await PaygateClient.withNewMerchant(paygate.url, TEST_ADMIN_TOKEN, 'Refunding merchant', receiver.url());
  });

  afterAll(async () => {
    await receiver?.close();
    await paygate?.close();
  });

  /** A COMPLETED sandbox collection paid from `msisdn`; its internal_reference and merchant_reference. */
  async function completedCollection(msisdn: string) {
    const request = mobileMoneyRequest({ msisdn, require_confirmation: false });
    const accepted = await client.initialize(request);
    expect(accepted.status).toBe(202);
    const ref = String(accepted.body.data.internal_reference);
    expect(await client.finalState(ref)).toMatchObject({ transaction_status: 'COMPLETED' });
    return { ref, merchantReference: String(request.merchant_reference) };
  }

  async function refund(internalReference: string, amount: number) {
    // The wallet is credited a moment after the collection completes; a refund is held on it.
    await eventually(
      async () => {
        const { body } = await client.request<{ currency: string; available_balance: number }[]>(
          'GET',
          '/v1/wallet-balances',
          { secret: true },
        );
        return body.data.some((wallet) => wallet.currency === 'UGX' && wallet.available_balance >= amount) || undefined;
      },
      10_000,
      'the wallet to cover the refund',
    );
    const refundReference = uniqueReference('refund');
    const answer = await client.request('POST', '/v1/refunds', {
      body: { internal_reference: internalReference, refund_reference: refundReference, amount },
      secret: true,
    });
    expect(answer).toMatchObject({ status: 202, body: { data: { refund_reference: refundReference } } });
    return refundReference;
  }

  const record = async (refundReference: string) =>
    (await client.request('GET', `/v1/refunds/${refundReference}`, { secret: true })).body.data;

  it('sends refund.completed after transaction.completed, with the refund record and the collection’s merchant_reference, signed with the signing key', async () => {
    const { ref, merchantReference } = await completedCollection('256772000001');
    const refundReference = await refund(ref, 20_000);

    const callbacks = await receiver.waitFor(ref, 'refund.completed');
    expect(callbacks.map((callback) => callback.event)).toEqual(['transaction.completed', 'refund.completed']);
    const [, refunded] = callbacks;
    expect(CallbackReceiver.verify(refunded, client.merchant.signingKey)).toBe(true);
    expect(CallbackReceiver.verify(refunded, 'sk_test_not_this_merchants_key')).toBe(false);
    expect(refunded.payload).toEqual({ ...(await record(refundReference)), merchant_reference: merchantReference });
    expect(refunded.payload).toMatchObject({
      refund_reference: refundReference,
      internal_reference: ref,
      amount: 20000,
      currency: 'UGX',
      status: 'COMPLETED',
      pending_reason: null,
      failure_reason: null,
    });
  });

  it('sends refund.failed when the provider refuses the refund (a collection paid from …0007)', async () => {
    const { ref, merchantReference } = await completedCollection('256772000007');
    const refundReference = await refund(ref, 10_000);

    const callbacks = await receiver.waitFor(ref, 'refund.failed');
    const failed = callbacks.find((callback) => callback.event === 'refund.failed')!;
    expect(CallbackReceiver.verify(failed, client.merchant.signingKey)).toBe(true);
    expect(failed.payload).toEqual({ ...(await record(refundReference)), merchant_reference: merchantReference });
    expect(failed.payload).toMatchObject({ refund_reference: refundReference, status: 'FAILED' });
    expect(failed.payload.failure_reason).toEqual(expect.any(String));
    expect(callbacks.map((callback) => callback.event)).toEqual(['transaction.completed', 'refund.failed']);
  });
});
