import { Webhook } from 'standardwebhooks';
import {
  CallbackReceiver,
  mobileMoneyRequest,
  PaygateClient,
  TEST_ADMIN_TOKEN,
  type ReceivedCallback,
} from '@paygate/testing';
import { merchantEnv, RunningCli, useListeningPaygate } from './listen-test-setup';

/** The Standard Webhooks reference implementation, with the key's bytes (docs/webhooks.md). */
const verifiesWithStandardWebhooks = (callback: ReceivedCallback, signingKey: string) => {
  const headers = Object.fromEntries(Object.entries(callback.headers).map(([name, value]) => [name, String(value)]));
  return (
    new Webhook(new TextEncoder().encode(signingKey), { format: 'raw' }).verify(callback.body, headers) !== undefined
  );
};

describe('paygate listen: callbacks forwarded to a local receiver', () => {
  const listening = useListeningPaygate('Listening merchant');

  it('says where it forwards from and to once connected', async () => {
    const ready = /^Ready! Forwarding callbacks from .* to http:\/\/127\.0\.0\.1:\d+\/hooks/;
    expect(await listening.listener.waitForLine(ready, 'the ready line')).toBeTruthy();
  });

  it("forwards a completed collection's callback with the body and signatures the merchant's endpoint got", async () => {
    const accepted = await listening.merchant.initialize(mobileMoneyRequest({ require_confirmation: false }));
    const ref = accepted.body.data.internal_reference as string;
    const [forwarded] = await listening.laptop.waitFor(ref, 'transaction.completed');
    const [sent] = await listening.merchantEndpoint.waitFor(ref, 'transaction.completed');

    expect(forwarded.path).toBe('/hooks');
    expect(forwarded.body).toBe(sent.body);
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'hmac-signature'])
      expect(forwarded.headers[name]).toBe(sent.headers[name]);
    expect(CallbackReceiver.verify(forwarded, listening.merchant.merchant.signingKey)).toBe(true);
    expect(verifiesWithStandardWebhooks(forwarded, listening.merchant.merchant.signingKey)).toBe(true);
    const line = await listening.listener.waitForLine(
      new RegExp(`^--> transaction\\.completed\\s+${String(sent.headers['webhook-id'])}  <-- 200 \\(\\d+ ms\\)$`),
      'the line',
    );
    expect(line).toBeTruthy();
  });

  it('forwards the callbacks of a merchant that has no callback URL, signed with its key', async () => {
    const bare = await PaygateClient.withNewMerchant(
      listening.paygate.url,
      TEST_ADMIN_TOKEN,
      'Merchant without a callback URL',
    );
    const bareLaptop = await CallbackReceiver.start();
    const bareListener = new RunningCli(
      ['listen', '--forward-to', bareLaptop.url(), '--api', listening.paygate.url],
      merchantEnv('http://127.0.0.1:9/unused', bare.merchant),
    );
    try {
      await bareListener.waitForLine(/^Ready!/, 'listen to connect');
      const ref = (await bare.initialize(mobileMoneyRequest({ msisdn: '256772000002', require_confirmation: false })))
        .body.data.internal_reference as string;
      const [failed] = await bareLaptop.waitFor(ref, 'transaction.failed');
      expect(failed.payload).toMatchObject({ internal_reference: ref, transaction_status: 'FAILED' });
      expect(CallbackReceiver.verify(failed, bare.merchant.signingKey)).toBe(true);
      expect(verifiesWithStandardWebhooks(failed, bare.merchant.signingKey)).toBe(true);
    } finally {
      expect(await bareListener.stop()).toBe(0);
      await bareLaptop.close();
    }
    expect(bareListener.stdout).toMatch(/Stopped\.\n$/);
  });

  it("never forwards another merchant's callbacks", async () => {
    const otherEndpoint = await CallbackReceiver.start();
    try {
      const other = await PaygateClient.withNewMerchant(
        listening.paygate.url,
        TEST_ADMIN_TOKEN,
        'Other merchant',
        otherEndpoint.url(),
      );
      const otherRef = (await other.initialize(mobileMoneyRequest({ require_confirmation: false }))).body.data
        .internal_reference as string;
      await otherEndpoint.waitFor(otherRef, 'transaction.completed');
      // The stream is in order: once a later callback of ours is forwarded, the other's would have been too.
      const ours = (await listening.merchant.initialize(mobileMoneyRequest({ require_confirmation: false }))).body.data
        .internal_reference as string;
      await listening.laptop.waitFor(ours, 'transaction.completed');
      expect(listening.laptop.about(otherRef)).toEqual([]);
    } finally {
      await otherEndpoint.close();
    }
  });

  it('reports a local receiver that is not listening and goes on with the next callback', async () => {
    const nowhere = await CallbackReceiver.start();
    const closedUrl = nowhere.url('/gone');
    await nowhere.close();
    const second = new RunningCli(
      ['listen', '--forward-to', closedUrl],
      merchantEnv(listening.paygate.url, listening.merchant.merchant),
    );
    try {
      await second.waitForLine(/^Ready!/, 'listen to connect');
      const ref = (
        await listening.merchant.initialize(mobileMoneyRequest({ msisdn: '256772000003', require_confirmation: false }))
      ).body.data.internal_reference as string;
      await listening.laptop.waitFor(ref, 'transaction.cancelled');
      await second.waitForLine(
        /^--> transaction\.cancelled\s+msg_\S+  <-- failed: ECONNREFUSED \(\d+ ms\)$/,
        'the refused forward',
      );
    } finally {
      await second.stop();
    }
  });

  it('refuses to start without the keys, or with keys the gateway does not know', async () => {
    const missing = new RunningCli(['listen', '--forward-to', listening.laptop.url()], {
      PAYGATE_API_URL: listening.paygate.url,
    });
    expect(await missing.exited).toBe(2);
    expect(missing.stderr).toBe(
      "paygate: listen: set PAYGATE_PUBLIC_KEY and PAYGATE_SECRET_KEY to the merchant's keys (npm start prints the demo merchant's)\n",
    );
    const wrong = new RunningCli(
      ['listen', '--forward-to', listening.laptop.url()],
      merchantEnv(listening.paygate.url, { ...listening.merchant.merchant, secretKey: 'sk_wrong' }),
    );
    expect(await wrong.exited).not.toBe(0);
    expect(wrong.stderr).toBe(
      'paygate: listen: the gateway refused the stream: 401 unknown public-key or wrong secret-key\n',
    );
    expect(wrong.stderr).not.toContain('sk_wrong');
    const badUrl = new RunningCli(
      ['listen', '--forward-to', 'ftp://example'],
      merchantEnv(listening.paygate.url, listening.merchant.merchant),
    );
    expect(await badUrl.exited).toBe(2);
    expect(badUrl.stderr).toBe('paygate: listen: --forward-to must be an http or https URL, got "ftp://example"\n');
  });
});
