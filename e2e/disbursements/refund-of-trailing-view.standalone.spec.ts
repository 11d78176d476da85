import { mobileMoneyRequest, PaygateClient, TEST_ADMIN_TOKEN, topUpWallet } from '@paygate/testing';
import type { InProcessPaygate } from '@paygate/standalone';
import { startCallbackTestPaygate } from '../standalone/test-paygate';

/**
 * A refund is decided on the collection's stream, not on the read model: in the distributed layout the view can trail
 * (a chaos soak saw a COMPLETED collection refused as PENDING after a database cut). Here the view is held back by
 * hand, its row put back to PENDING, and the refund is still accepted; the view's own answer shows it trails.
 */
describe('a refund of a collection whose read model trails its stream', () => {
  let paygate: InProcessPaygate;
  let client: PaygateClient;

  beforeAll(async () => {
    paygate = await startCallbackTestPaygate();
    client = await PaygateClient.withNewMerchant(paygate.url, TEST_ADMIN_TOKEN, 'Trailing-view merchant');
    await topUpWallet(paygate.url, client.merchant.id, 200_000);
  }, 120_000);
  afterAll(() => paygate?.close());

  it('is accepted: the stream says COMPLETED though the view still says PENDING', async () => {
    const init = await client.initialize(mobileMoneyRequest({ require_confirmation: false }));
    const ref = String(init.body.data.internal_reference);
    expect(await client.finalState(ref)).toMatchObject({ transaction_status: 'COMPLETED' });
    const [held] = await paygate.infrastructure.sql.query<{ internal_reference: string }>(
      `update collection_view set state = jsonb_set(state, '{status}', '"PENDING"') where internal_reference = $1
       returning internal_reference`,
      [ref],
    );
    expect(held).toEqual({ internal_reference: ref });
    expect((await client.collection(ref)).body.data.transaction_status).toBe('PENDING');

    const refund = await client.request<{ status: string; amount: number }>('POST', '/v1/refunds', {
      secret: true,
      body: { internal_reference: ref, refund_reference: `trailing-${process.pid}`, amount: 10_000 },
    });
    expect(refund.status).toBe(202);
    expect(refund.body.data).toMatchObject({ status: 'PENDING', amount: 10_000 });
  });
});
