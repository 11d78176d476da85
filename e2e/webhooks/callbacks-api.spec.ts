import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  CallbackReceiver,
  eventually,
  mobileMoneyRequest,
  PaygateClient,
  TEST_ADMIN_TOKEN,
  TEST_CALLBACK_SETTINGS,
} from '@paygate/testing';
import type { InProcessPaygate } from '@paygate/standalone';
import { startCallbackTestPaygate } from '../standalone/test-paygate';

type Delivery = {
  webhook_id: string;
  internal_reference: string;
  event: string;
  state: string;
  attempts: { status_code: number | null }[];
};

describe('callbacks: resend, delivery states, admin retry', () => {
  let paygate: InProcessPaygate;
  let receiver: CallbackReceiver;
  let client: PaygateClient;

  const admin = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${paygate.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${TEST_ADMIN_TOKEN}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as { data: { deliveries: Delivery[] | number } } };
  };
  const deliveriesOf = async (ref: string) =>
    (await admin('GET', `/admin/v1/deliveries?internal_reference=${ref}`)).body.data.deliveries as Delivery[];

  /** A collection that gets its charges callback and nothing after (prompt never answered, long time-outs). */
  const pendingCollection = async (merchant: PaygateClient) =>
    (await merchant.initialize(mobileMoneyRequest())).body.data.internal_reference as string;

  beforeAll(async () => {
    paygate = await startCallbackTestPaygate({
      CONFIRMATION_TIMEOUT_MS: '3600000',
    });
    receiver = await CallbackReceiver.start();
    client = await PaygateClient.withNewMerchant(paygate.url, TEST_ADMIN_TOKEN, 'Callbacks merchant', receiver.url());
  });

  afterAll(async () => {
    await receiver?.close();
    await paygate?.close();
  });

  it("resends a transaction's callbacks with the same webhook-id", async () => {
    const ref = await pendingCollection(client);
    const [first] = await receiver.waitFor(ref, 'transaction.charges');
    const resend = await client.request('POST', '/v1/callbacks/resend', {
      body: { internal_reference: ref },
      secret: true,
    });
    expect(resend).toMatchObject({
      status: 202,
      body: { code: 202, status: 'accepted', data: { internal_reference: ref, deliveries: 1 } },
    });
    const both = await eventually(
      () => (receiver.about(ref).length === 2 ? receiver.about(ref) : undefined),
      10_000,
      'the resent callback',
    );
    expect(both[1].headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(both[1].body).toBe(first.body);
    expect(CallbackReceiver.verify(both[1], client.merchant.signingKey)).toBe(true);
    // The receiver has the callback before the dispatcher has read the answer and recorded the attempt. The list reads
    // the state before the attempts, so a state of delivered comes with the attempt that made it.
    const delivery = await eventually(
      async () => {
        const [found] = await deliveriesOf(ref);
        return found?.state === 'delivered' ? found : undefined;
      },
      10_000,
      'the resent attempt recorded',
    );
    expect(delivery.event).toBe('transaction.charges');
    expect(delivery.attempts.map((attempt) => attempt.status_code)).toEqual([200, 200]);
  });

  it("answers resend for an unknown or another merchant's transaction with 404, and needs the secret key", async () => {
    const other = await PaygateClient.withNewMerchant(
      paygate.url,
      TEST_ADMIN_TOKEN,
      'Other merchant',
      receiver.url('/other'),
    );
    const ref = await pendingCollection(other);
    await receiver.waitFor(ref, 'transaction.charges');
    const unknown = await client.request('POST', '/v1/callbacks/resend', {
      body: { internal_reference: 'PG0000000000000000000000ZZ' },
      secret: true,
    });
    const foreign = await client.request('POST', '/v1/callbacks/resend', {
      body: { internal_reference: ref },
      secret: true,
    });
    expect(unknown.status).toBe(404);
    expect(foreign).toEqual(unknown);
    expect((await client.request('POST', '/v1/callbacks/resend', { body: { internal_reference: ref } })).status).toBe(
      401,
    );
    expect((await client.request('POST', '/v1/callbacks/resend', { body: {}, secret: true })).status).toBe(400);
  });

  it('records callbacks of a merchant without a callback URL as undeliverable', async () => {
    const silent = await PaygateClient.withNewMerchant(paygate.url, TEST_ADMIN_TOKEN, 'No URL merchant');
    const ref = await pendingCollection(silent);
    const deliveries = await eventually(
      async () => {
        const found = await deliveriesOf(ref);
        return found.length > 0 ? found : undefined;
      },
      10_000,
      'the undeliverable delivery',
    );
    expect(deliveries).toMatchObject([{ state: 'undeliverable', event: 'transaction.charges', attempts: [] }]);
    expect((await admin('GET', '/admin/v1/deliveries?state=undeliverable')).body.data.deliveries).toEqual(
      expect.arrayContaining([expect.objectContaining({ internal_reference: ref })]),
    );
  });

  it('abandons a delivery after the schedule, and an admin retry delivers it once the receiver is back', async () => {
    let healthy = false;
    const flaky: Server = createServer((request, response) => {
      request.resume();
      response.writeHead(healthy ? 200 : 500).end(healthy ? 'ok' : 'down');
    });
    await new Promise<void>((resolve) => flaky.listen(0, '127.0.0.1', resolve));
    try {
      const merchant = await PaygateClient.withNewMerchant(
        paygate.url,
        TEST_ADMIN_TOKEN,
        'Flaky merchant',
        `http://127.0.0.1:${(flaky.address() as AddressInfo).port}/cb`,
      );
      const ref = await pendingCollection(merchant);
      const abandoned = await eventually(
        async () => {
          const [delivery] = await deliveriesOf(ref);
          return delivery?.state === 'abandoned' ? delivery : undefined;
        },
        20_000,
        'the delivery to be abandoned',
      );
      expect(abandoned.attempts.map((attempt) => attempt.status_code)).toEqual(
        TEST_CALLBACK_SETTINGS.CALLBACK_RETRY_SCHEDULE.split(',').map(() => 500),
      );
      expect((await admin('GET', '/admin/v1/deliveries?state=abandoned')).body.data.deliveries).toEqual(
        expect.arrayContaining([expect.objectContaining({ webhook_id: abandoned.webhook_id })]),
      );

      healthy = true;
      const retried = await admin('POST', '/admin/v1/deliveries/retry', { webhook_ids: [abandoned.webhook_id] });
      expect(retried).toMatchObject({ status: 202, body: { data: { deliveries: 1 } } });
      const delivered = await eventually(
        async () => {
          const [delivery] = await deliveriesOf(ref);
          return delivery?.state === 'delivered' ? delivery : undefined;
        },
        10_000,
        'the retried delivery',
      );
      expect(delivered.attempts[delivered.attempts.length - 1].status_code).toBe(200);
    } finally {
      flaky.closeAllConnections();
      await new Promise((resolve) => flaky.close(resolve));
    }
  });

  it('refuses the admin delivery endpoints without the admin token and with bad input', async () => {
    expect((await fetch(`${paygate.url}/admin/v1/deliveries`)).status).toBe(401);
    expect((await admin('GET', '/admin/v1/deliveries?state=lost')).status).toBe(400);
    expect((await admin('POST', '/admin/v1/deliveries/retry', { webhook_ids: 'all' })).status).toBe(400);
    const nul = await admin('GET', '/admin/v1/deliveries?internal_reference=%00');
    expect(nul).toMatchObject({
      status: 400,
      body: { code: 400, status: 'error', data: { errors: [{ field: 'internal_reference' }] } },
    });
  });

  it('answers a merchant id holding NUL, which no id can, with 400 naming it', async () => {
    const refused = {
      status: 400,
      body: {
        code: 400,
        status: 'error',
        message: 'path parameter id must not contain NUL characters or unpaired UTF-16 surrogates',
        data: { errors: [{ field: 'id', message: expect.any(String) }] },
      },
    };
    expect(await admin('GET', '/admin/v1/merchants/mer_%00')).toEqual(refused);
    expect(await admin('PATCH', '/admin/v1/merchants/%00', { status: 'active' })).toEqual(refused);
    expect(await admin('POST', '/admin/v1/merchants/%00/keys', { keys: ['api'] })).toEqual(refused);
  });
});
