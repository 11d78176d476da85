import { CallbackReceiver, TEST_ADMIN_TOKEN } from '@paygate/testing';
import { runCli } from './cli-test-setup';
import { useListeningPaygate } from './listen-test-setup';

/** Each event `paygate trigger` takes, and the callbacks it makes the sandbox send, in order. */
const EXPECTED: [string, string[]][] = [
  ['transaction.charges', ['transaction.charges', 'transaction.completed']],
  ['transaction.completed', ['transaction.completed']],
  ['transaction.failed', ['transaction.failed']],
  ['transaction.cancelled', ['transaction.cancelled']],
  ['payment.completed', ['transaction.completed', 'payment.completed']],
  ['payment.failed', ['payment.failed', 'transaction.cancelled']],
  ['refund.completed', ['transaction.completed', 'refund.completed']],
  ['refund.failed', ['transaction.completed', 'refund.failed']],
];

describe('paygate trigger: the sandbox produces each callback event', () => {
  const listening = useListeningPaygate('Triggering merchant');

  const triggered = (stdout: string) => {
    const match = /collection (PG[0-9A-Z]+) /.exec(stdout);
    if (!match) throw new Error(`no collection in: ${stdout}`);
    return match[1];
  };

  it.each(EXPECTED)('%s: the callbacks reach the callback URL and paygate listen, signed', async (event, callbacks) => {
    const run = await runCli(
      ['trigger', event],
      event === 'payment.completed' ? { ...listening.env, PAYGATE_ADMIN_TOKEN: TEST_ADMIN_TOKEN } : listening.env,
    );
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(new RegExp(`^Triggered ${event.replace('.', '\\.')}: `));
    const ref = triggered(run.stdout);
    const last = callbacks[callbacks.length - 1];
    const forwarded = await listening.laptop.waitFor(ref, last);
    const sent = await listening.merchantEndpoint.waitFor(ref, last);
    expect(forwarded.map((callback) => callback.event)).toEqual(callbacks);
    expect(sent.map((callback) => callback.event)).toEqual(callbacks);
    for (const callback of forwarded)
      expect(CallbackReceiver.verify(callback, listening.merchant.merchant.signingKey)).toBe(true);
  });

  it('transaction.charges leaves nothing pending: the collection it started is confirmed and ends COMPLETED, not cancelled later', async () => {
    const run = await runCli(['trigger', 'transaction.charges'], listening.env);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain('callbacks to expect: transaction.charges, transaction.completed\n');
    const ref = triggered(run.stdout);
    // COMPLETED is final: no confirmation timer is left to cancel it (and call back) later.
    expect(await listening.merchant.finalState(ref)).toMatchObject({ transaction_status: 'COMPLETED' });
    const forwarded = await listening.laptop.waitFor(ref, 'transaction.completed');
    expect(forwarded.map((callback) => callback.event)).toEqual(['transaction.charges', 'transaction.completed']);
  });

  it('refund.completed refunds part of the collection it ran, once completed, and names the refund', async () => {
    const run = await runCli(['trigger', 'refund.completed'], listening.env);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const refund = /, refund (\S+)\n/.exec(run.stdout)?.[1];
    expect(refund).toBeDefined();
    const ref = triggered(run.stdout);
    const [, refunded] = await listening.merchantEndpoint.waitFor(ref, 'refund.completed');
    expect(refunded.payload).toMatchObject({ refund_reference: refund, internal_reference: ref, amount: 500 });
  });

  it('payment.completed without the admin token pays the sandbox PRN that exists from the start', async () => {
    const run = await runCli(['trigger', 'payment.completed'], listening.env);
    expect(run.stdout).toContain(', PRN 2250000001301\n');
    const forwarded = await listening.laptop.waitFor(triggered(run.stdout), 'payment.completed');
    expect(forwarded.map((callback) => callback.event)).toEqual(['transaction.completed', 'payment.completed']);
  });

  it('refuses an event it cannot produce, naming the ones it can', async () => {
    const run = await runCli(['trigger', 'transaction.refunded'], listening.env);
    expect(run).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'paygate: trigger: unknown event "transaction.refunded": one of transaction.charges, transaction.completed, transaction.failed, transaction.cancelled, payment.completed, payment.failed, refund.completed, refund.failed, payout.completed, payout.failed, payout.reversed\n',
    });
    expect((await runCli(['trigger'], listening.env)).stderr).toMatch(
      /^paygate: trigger: name the event: one of transaction\.charges, /,
    );
  });

  it('says what the gateway answered when the keys are wrong, without echoing them', async () => {
    const run = await runCli(['trigger', 'transaction.completed'], {
      ...listening.env,
      PAYGATE_PUBLIC_KEY: 'pk_wrong_one',
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('paygate: trigger: the gateway refused the collection: 401 unknown public-key\n');
    expect(run.stderr).not.toContain('pk_wrong_one');
  });
});
