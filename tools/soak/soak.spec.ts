import { callback, cleanRun, flow, T0 } from './checks-test-setup';
import { expectedCallbacks, judge } from './checks';
import { chaosSoakSuite } from './soak-test-setup';

describe('the soak checks', () => {
  it('expects the callbacks the outcome causes, in the documented order', () => {
    const final = (
      status: string,
      statusMessage = '',
      servicePaymentStatus?: string,
      servicePaymentMessage?: string,
    ) => ({
      status,
      statusMessage,
      servicePaymentStatus,
      servicePaymentMessage,
    });
    expect(expectedCallbacks(flow('a'), final('FAILED'))).toEqual(['transaction.charges', 'transaction.failed']);
    expect(expectedCallbacks(flow('a', { requireConfirmation: false }), final('COMPLETED'))).toEqual([
      'transaction.completed',
    ]);
    const prn = flow('a', { kind: 'prn', prn: '1234567890123', requireConfirmation: false });
    expect(expectedCallbacks(prn, final('COMPLETED', 'Transaction completed successfully', 'COMPLETED'))).toEqual([
      'transaction.completed',
      'payment.completed',
    ]);
    expect(expectedCallbacks(prn, final('CANCELLED', 'PRN not eligible: already paid', 'FAILED'))).toEqual([
      'payment.failed',
      'transaction.cancelled',
    ]);
    // The verdict deadline cancelled the collection, and the PRN was refused all the same: the refusal's payment.failed
    // still comes first.
    const timedOut = 'Transaction cancelled: the PRN could not be validated in time';
    expect(expectedCallbacks(prn, final('CANCELLED', timedOut, 'FAILED', 'PRN not eligible: already paid'))).toEqual([
      'payment.failed',
      'transaction.cancelled',
    ]);
    // The deadline passed with no verdict at all: the payment fails after the collection.
    expect(
      expectedCallbacks(
        prn,
        final('CANCELLED', timedOut, 'FAILED', 'PRN payment failed: the collection was cancelled'),
      ),
    ).toEqual(['transaction.cancelled', 'payment.failed']);
  });

  it('passes a clean run, and counts a redelivery under the same webhook-id apart', () => {
    const run = cleanRun();
    run.callbacks.push(callback('PG1', 'transaction.completed', T0 + 4_000));
    const report = judge(run);
    expect(report.failures).toEqual([]);
    expect(report.figures).toMatchObject({
      final: 1,
      redelivered: 1,
      duplicateCallbacks: 0,
      ledgerSum: 0,
      latencyMs: { worst: 2_900 },
    });
    expect(report.lines[report.lines.length - 1]).toMatch(/^Soak: .*: passed$/);
  });

  it('fails a callback sent under two webhook-ids, one out of order, a bad signature and a missing one', () => {
    const run = cleanRun();
    run.flows.push(flow('PG2'), flow('PG3'), flow('PG4'));
    run.finals.set('PG2', { status: 'FAILED', statusMessage: '' });
    run.finals.set('PG3', { status: 'FAILED', statusMessage: '' });
    run.finals.set('PG4', { status: 'FAILED', statusMessage: '' });
    run.callbacks.push(
      callback('PG1', 'transaction.completed', T0 + 5_000, { webhookId: 'msg_other' }),
      callback('PG2', 'transaction.failed', T0 + 1_000, { status: 'FAILED' }),
      callback('PG2', 'transaction.charges', T0 + 2_000),
      callback('PG3', 'transaction.charges', T0 + 1_000, { key: 'another key' }),
      callback('PG3', 'transaction.failed', T0 + 2_000, { status: 'FAILED' }),
      callback('PG4', 'transaction.charges', T0 + 1_000),
    );
    const report = judge(run);
    expect(report.passed).toBe(false);
    expect(report.figures).toMatchObject({
      duplicateCallbacks: 1,
      outOfOrder: 1,
      invalidSignatures: 1,
      callbacksMissing: 1,
    });
    expect(report.lines[report.lines.length - 1]).toMatch(/^Soak: .*: FAILED \(4 violations\)$/);
  });

  it('fails a lost collection, a PRN paid twice and a ledger that does not match', () => {
    const run = cleanRun();
    run.flows.push(flow('PG5'), flow('PG6', { kind: 'prn', prn: '9999', requireConfirmation: false }));
    run.finals.set('PG6', { status: 'COMPLETED', statusMessage: '', servicePaymentStatus: 'COMPLETED' });
    run.prns.set('9999', { status: 'PAID', payments: 2 });
    run.walletBalances.set('m1', 70_000);
    const report = judge(run);
    expect(report.figures).toMatchObject({ lost: 1, prnsPaidTwice: 1 });
    expect(report.failures).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^not final: PG5/),
        expect.stringMatching(/^PRN 9999 paid 2 times/),
        expect.stringMatching(/^ledger: PG6 COMPLETED but not credited/),
        expect.stringMatching(/^ledger: wallet of m1: API shows 70000, ledger holds 80000/),
      ]),
    );
  });
});

chaosSoakSuite();
