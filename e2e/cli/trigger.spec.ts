import type { InProcessPaygate } from '@paygate/standalone';
import {
  CallbackReceiver,
  PaygateClient,
  TEST_ADMIN_TOKEN,
  TEST_CALLBACK_SETTINGS,
  TEST_TIMERS,
} from '@paygate/testing';
import { runCli } from './cli-test-setup';
import { merchantEnv, RunningCli } from './listen-test-setup';
import { startTestPaygate } from '../standalone/test-paygate';

/** Each event `paygate trigger` takes, and the callbacks it makes the sandbox send, in order. */
const EXPECTED: [string, string[]][] = [
  ['transaction.charges', ['transaction.charges', 'transaction.completed']],
  ['transaction.completed', ['transaction.completed']],
  ['transaction.failed', ['transaction.failed']],
  ['transaction.cancelled', ['transaction.cancelled']],
  ['payment.completed', ['transaction.completed', 'payment.completed']],
  ['payment.failed', ['payment.failed', 'transaction.cancelled']],
];

describe('paygate trigger: the sandbox produces each callback event', () => {
  let paygate: InProcessPaygate;
  let merchantEndpoint: CallbackReceiver;
  let laptop: CallbackReceiver;
  let merchant: PaygateClient;
  let listener: RunningCli;
  let env: Record<string, string>;

  beforeAll(async () => {
    paygate = await startTestPaygate({
      ...TEST_TIMERS,
      ...TEST_CALLBACK_SETTINGS,
    });
    merchantEndpoint = await CallbackReceiver.start();
    laptop = await CallbackReceiver.start();
    merchant = await PaygateClient.withNewMerchant(
      paygate.url,
      TEST_ADMIN_TOKEN,
      'Triggering merchant',
      merchantEndpoint.url(),
    );
    env = merchantEnv(paygate.url, merchant.merchant);
    listener = new RunningCli(['listen', '--forward-to', laptop.url('/hooks')], env);
    await listener.waitForLine(/^Ready!/, 'listen to connect');
  });

  afterAll(async () => {
    await listener?.stop();
    await laptop?.close();
    await merchantEndpoint?.close();
    await paygate?.close();
  });

  const triggered = (stdout: string) => {
    const match = /collection (PG[0-9A-Z]+) /.exec(stdout);
    if (!match) throw new Error(`no collection in: ${stdout}`);
    return match[1];
  };

  it.each(EXPECTED)('%s: the callbacks reach the callback URL and paygate listen, signed', async (event, callbacks) => {
    const run = await runCli(
      ['trigger', event],
      event === 'payment.completed' ? { ...env, PAYGATE_ADMIN_TOKEN: TEST_ADMIN_TOKEN } : env,
    );
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(new RegExp(`^Triggered ${event.replace('.', '\\.')}: `));
    const ref = triggered(run.stdout);
    const last = callbacks[callbacks.length - 1];
    const forwarded = await laptop.waitFor(ref, last);
    const sent = await merchantEndpoint.waitFor(ref, last);
    expect(forwarded.map((callback) => callback.event)).toEqual(callbacks);
    expect(sent.map((callback) => callback.event)).toEqual(callbacks);
    for (const callback of forwarded)
      expect(CallbackReceiver.verify(callback, merchant.merchant.signingKey)).toBe(true);
  });

  it('transaction.charges leaves nothing pending: the collection it started is confirmed and ends COMPLETED, not cancelled later', async () => {
    const run = await runCli(['trigger', 'transaction.charges'], env);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain('callbacks to expect: transaction.charges, transaction.completed\n');
    const ref = triggered(run.stdout);
    // COMPLETED is final: no confirmation timer is left to cancel it (and call back) later.
    expect(await merchant.finalState(ref)).toMatchObject({ transaction_status: 'COMPLETED' });
    const forwarded = await laptop.waitFor(ref, 'transaction.completed');
    expect(forwarded.map((callback) => callback.event)).toEqual(['transaction.charges', 'transaction.completed']);
  });

  it('payment.completed without the admin token pays the sandbox PRN that exists from the start', async () => {
    const run = await runCli(['trigger', 'payment.completed'], env);
    expect(run.stdout).toContain(', PRN 2250000001301\n');
    const forwarded = await laptop.waitFor(triggered(run.stdout), 'payment.completed');
    expect(forwarded.map((callback) => callback.event)).toEqual(['transaction.completed', 'payment.completed']);
  });

  it('refuses an event it cannot produce, naming the ones it can', async () => {
    const run = await runCli(['trigger', 'transaction.refunded'], env);
    expect(run).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'paygate: trigger: unknown event "transaction.refunded": one of transaction.charges, transaction.completed, transaction.failed, transaction.cancelled, payment.completed, payment.failed\n',
    });
    expect((await runCli(['trigger'], env)).stderr).toMatch(
      /^paygate: trigger: name the event: one of transaction\.charges, /,
    );
  });

  it('says what the gateway answered when the keys are wrong, without echoing them', async () => {
    const run = await runCli(['trigger', 'transaction.completed'], { ...env, PAYGATE_PUBLIC_KEY: 'pk_wrong_one' });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('paygate: trigger: the gateway refused the collection: 401 unknown public-key\n');
    expect(run.stderr).not.toContain('pk_wrong_one');
  });
});
