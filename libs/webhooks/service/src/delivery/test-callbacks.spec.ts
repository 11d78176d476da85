import { SendTestCallback, WEBHOOKS_SERVICE, type TestCallbackResult } from '@paygate/contracts';
import { SqlEventStore } from '@paygate/event-store';
import { createLogger } from '@paygate/logging';
import { MerchantAccounts, SecretBox } from '@paygate/merchants';
import { openMessaging, type Messaging } from '@paygate/messaging';
import { TARGET_NOT_ALLOWED } from '@paygate/net-guard';
import { verifyCollectionSignature, verifyStandardWebhook } from '@paygate/signing';
import type { SqlDatabase } from '@paygate/sql';
import { describeOnAllSqlEngines } from '@paygate/testing';
import { TEST_CALLBACK_REFERENCE, type TestCallbackMessage } from '@paygate/webhooks-domain';
import { SendTestCallbackHandler, type Dispatcher } from '../handlers';
import { senderHarness } from './callback-sender-test-setup';
import { NO_COLLECTION_CALLBACK_URL, TestCallbacks } from './test-callbacks';

/**
 * webhooks.sendTestCallback, sent as the gateway sends it (through the command bus, routed by the webhooks contract) to
 * a dispatcher whose sender posts to a loopback receiver standing for the merchant's collection callback URL.
 */
describeOnAllSqlEngines('webhooks.sendTestCallback', 'test_callbacks', (open) => {
  const { receiver, sender } = senderHarness();
  let sql: SqlDatabase;
  let close: () => Promise<void>;
  let merchants: MerchantAccounts;
  let messaging: Messaging;
  /** The sender the dispatcher under test uses (private targets allowed, as the loopback receivers need). */
  let dispatcherSender: ReturnType<typeof sender>;

  beforeAll(async () => {
    ({ db: sql, close } = await open());
    merchants = await MerchantAccounts.open(sql, SecretBox.fromMasterKey(SecretBox.generateMasterKey()));
    messaging = await openMessaging(
      'inproc://',
      { store: await SqlEventStore.create(sql), sql, log: createLogger('test-callbacks-spec', 'error') },
      { clientId: 'test-callbacks-spec' },
    );
    const signingKey = async (merchantId: string) => (await merchants.keys(merchantId))?.signingKey ?? null;
    const dispatcher = {
      testCallbacks: new TestCallbacks({
        sender: { send: (...args) => dispatcherSender.send(...args) },
        merchants,
        signingKey,
      }),
    } as Pick<Dispatcher, 'testCallbacks'> as Dispatcher;
    const handler = new SendTestCallbackHandler(dispatcher);
    await messaging.commands.serve(WEBHOOKS_SERVICE, (message) => handler.execute(message as SendTestCallback));
  });
  afterAll(async () => {
    await messaging.close();
    await close();
  });
  beforeEach(() => {
    dispatcherSender = sender();
  });

  const merchantWithUrl = (collectionCallbackUrl: string | null) =>
    merchants.create({ name: 'Test callbacks merchant', collectionCallbackUrl });
  const sendTest = (merchantId: string): Promise<TestCallbackResult> =>
    messaging.commands.send(new SendTestCallback({ merchantId }));

  it("posts one test.callback to the merchant's collection callback URL, signed with its signing key", async () => {
    const endpoint = await receiver((response) => setTimeout(() => response.end('ok'), 30));
    const { merchant, keys } = await merchantWithUrl(endpoint.url('/collections?shop=1'));

    const answer = await sendTest(merchant.id);

    expect(answer).toEqual({
      url: endpoint.url('/collections?shop=1'),
      statusCode: 200,
      durationMs: expect.any(Number),
      error: null,
      webhookId: expect.stringMatching(/^msg_test_[0-9a-f-]{36}$/),
    });
    expect(answer.durationMs).toBeGreaterThanOrEqual(25);
    expect(endpoint.received).toHaveLength(1);
    const [request] = endpoint.received;
    expect(request.path).toBe('/collections?shop=1');
    expect(request.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'Paygate-Webhooks/1',
      'webhook-id': answer.webhookId,
    });
    const body = request.body.toString('utf8');
    const callback = JSON.parse(body) as TestCallbackMessage;
    expect(Object.keys(callback)).toEqual(['event', 'payload']);
    expect(callback.event).toBe('test.callback');
    expect(callback.payload).toMatchObject({
      transaction_type: 'COLLECTION',
      internal_reference: TEST_CALLBACK_REFERENCE,
    });
    expect(
      verifyCollectionSignature(keys.signingKey, callback.payload, String(request.headers['hmac-signature'])),
    ).toBe(true);
    expect(verifyStandardWebhook(keys.signingKey, request.headers as Record<string, string>, body)).toBe(true);
    expect(verifyStandardWebhook('another merchant key', request.headers as Record<string, string>, body)).toBe(false);

    // Each test is a new callback, with a webhook id of its own.
    const again = await sendTest(merchant.id);
    expect(again.webhookId).not.toBe(answer.webhookId);
    expect(endpoint.received.map((each) => each.headers['webhook-id'])).toEqual([answer.webhookId, again.webhookId]);
  });

  it("answers the receiver's status as it is, once: a 500 is neither an error of the test nor retried", async () => {
    const endpoint = await receiver((response) => {
      response.statusCode = 500;
      response.end('broken');
    });
    const { merchant } = await merchantWithUrl(endpoint.url());

    expect(await sendTest(merchant.id)).toMatchObject({ url: endpoint.url(), statusCode: 500, error: null });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(endpoint.received).toHaveLength(1);
  });

  it('sends nothing when the merchant has no collection callback URL, and says so', async () => {
    const { merchant } = await merchantWithUrl(null);

    expect(await sendTest(merchant.id)).toEqual({
      url: null,
      statusCode: null,
      durationMs: 0,
      error: NO_COLLECTION_CALLBACK_URL,
      webhookId: expect.stringMatching(/^msg_test_/),
    });
    expect(NO_COLLECTION_CALLBACK_URL).toBe('no collection callback URL is set');
  });

  it("gives the address guard's refusal, connecting to nothing, when private targets are not allowed", async () => {
    dispatcherSender = sender({ allowPrivate: false });
    const endpoint = await receiver();
    const { merchant } = await merchantWithUrl(endpoint.url());

    expect(await sendTest(merchant.id)).toMatchObject({
      url: endpoint.url(),
      statusCode: null,
      error: `${TARGET_NOT_ALLOWED}: loopback (127.0.0.0/8)`,
    });
    expect(endpoint.connections()).toBe(0);
  });

  it('gives the connection failure of a receiver that is gone', async () => {
    const endpoint = await receiver();
    const { merchant } = await merchantWithUrl(endpoint.url());
    await endpoint.close();

    const answer = await sendTest(merchant.id);
    expect(answer).toMatchObject({ url: endpoint.url(), statusCode: null });
    expect(answer.error).toMatch(/ECONNREFUSED|connect/i);
  });
});
