import { CallbackReceiver, eventually, TEST_ADMIN_TOKEN, type ReceivedCallback } from '@paygate/testing';
import { runCli } from './cli-test-setup';
import { useListeningPaygate } from './listen-test-setup';

/** Each payout event `paygate trigger` takes, and the payout callbacks it makes the sandbox send, in order. */
const EXPECTED: [string, string[]][] = [
  ['payout.completed', ['payout.completed']],
  ['payout.failed', ['payout.failed']],
  ['payout.reversed', ['payout.completed', 'payout.reversed']],
];

describe('paygate trigger: a payout from the wallet a sandbox collection funded', () => {
  const listening = useListeningPaygate('Triggering payouts merchant');

  beforeAll(async () => {
    const patched = await fetch(`${listening.paygate.url}/admin/v1/merchants/${listening.merchant.merchant.id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ payouts_callback_url: listening.merchantEndpoint.url('/payouts') }),
    });
    expect(patched.status).toBe(200);
  });

  const ofPayout = (receiver: CallbackReceiver, reference: string, last: string): Promise<ReceivedCallback[]> =>
    eventually(
      () => {
        const about = receiver.received.filter((callback) => callback.payload.payout_reference === reference);
        return about.some((callback) => callback.event === last) ? about : undefined;
      },
      30_000,
      `callback ${last} for payout ${reference}`,
    );

  it.each(EXPECTED)(
    '%s: the collection completes, then the payout callbacks reach the payouts callback URL and paygate listen, signed',
    async (event, callbacks) => {
      const run = await runCli(['trigger', event], listening.env);
      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(run.stdout).toContain(`callbacks to expect: transaction.completed, ${callbacks.join(', ')}\n`);
      const collection = /collection (PG[0-9A-Z]+) /.exec(run.stdout)?.[1];
      const payout = /, payout (\S+)\n/.exec(run.stdout)?.[1];
      if (!collection || !payout) throw new Error(`no collection or payout in: ${run.stdout}`);
      const funded = await listening.merchantEndpoint.waitFor(collection, 'transaction.completed');
      expect(funded.map((callback) => callback.event)).toEqual(['transaction.completed']);
      const last = callbacks[callbacks.length - 1];
      const sent = await ofPayout(listening.merchantEndpoint, payout, last);
      const forwarded = await ofPayout(listening.laptop, payout, last);
      expect(sent.map((callback) => callback.event)).toEqual(callbacks);
      expect(forwarded.map((callback) => callback.event)).toEqual(callbacks);
      expect(sent.every((callback) => callback.path === '/payouts')).toBe(true);
      expect(sent[0].payload).toMatchObject({ payout_reference: payout, amount: 1_000, msisdn: expect.any(String) });
      for (const callback of [...sent, ...forwarded])
        expect(CallbackReceiver.verify(callback, listening.merchant.merchant.signingKey)).toBe(true);
    },
  );
});
