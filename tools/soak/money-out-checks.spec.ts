import type { RunRecord } from './checks';
import { expectedCallbacks, judge } from './checks';
import { callback, cleanRun, flow, merchant, T0, transfer, WALLET, withLedger } from './checks-test-setup';
import type { MoneyOutFlow } from './money-out';
import type { HoldEvent } from './observe';

function moneyOut(kind: 'payout' | 'refund', reference: string, overrides: Partial<MoneyOutFlow> = {}): MoneyOutFlow {
  return {
    kind,
    scenario: `${kind} for the spec`,
    merchant,
    reference,
    amount: 10_000,
    reversed: false,
    startedAt: T0,
    attempts: 1,
    acceptedAt: T0 + 100,
    unexpected: [],
    ...overrides,
  };
}

const placed = (holdId: string): HoldEvent => ({ holdId, event: 'placed' });
const captured = (holdId: string): HoldEvent => ({ holdId, event: 'captured' });
const released = (holdId: string): HoldEvent => ({ holdId, event: 'released' });
const paidOut = (holdId: string, amount: number) => transfer(`money-out:${holdId}`, WALLET, 'money_out:UGX', amount);
const creditedBack = (holdId: string, amount: number) =>
  transfer(`money-out-reversal:${holdId}`, 'money_out:UGX', WALLET, amount);

/**
 * The clean collection PG1 refunded in part (R1, completed), and three payouts: P1 completed, P2 failed before the
 * provider registered it, P3 completed and reversed (its request reached the provider twice); everything right.
 */
function runWithMoneyOut(): RunRecord {
  const run = cleanRun();
  run.flows[0].refundReference = 'R1';
  run.callbacks.push(
    callback('PG1', 'refund.completed', T0 + 9_000, {
      payload: {
        refund_reference: 'R1',
        internal_reference: 'PG1',
        merchant_reference: 'ref-PG1',
        status: 'COMPLETED',
      },
    }),
  );
  run.moneyOut = [
    moneyOut('refund', 'R1', { amount: 16_000, collection: run.flows[0] }),
    moneyOut('payout', 'P1'),
    moneyOut('payout', 'P2'),
    moneyOut('payout', 'P3', { reversed: true }),
  ];
  run.moneyOutFinals = new Map([
    ['R1', { status: 'COMPLETED', failureReason: null }],
    ['P1', { status: 'COMPLETED', failureReason: null }],
    ['P2', { status: 'FAILED', failureReason: 'INTERNAL_PROCESSING_ERROR' }],
    ['P3', { status: 'REVERSED', failureReason: 'TRANSACTION_REVERSED' }],
  ]);
  run.atProvider = new Map([
    ['R1', { requestsReceived: 1, status: 'SUCCESSFUL' }],
    ['P1', { requestsReceived: 1, status: 'SUCCESSFUL' }],
    ['P3', { requestsReceived: 2, status: 'REVERSED' }],
  ]);
  return withLedger(
    run,
    [
      ...run.ledger.transfers,
      paidOut('refund:R1', 16_000),
      paidOut('payout:P1', 10_500),
      paidOut('payout:P3', 10_500),
      creditedBack('payout:P3', 10_500),
    ],
    [
      ...['refund:R1', 'payout:P1', 'payout:P2', 'payout:P3'].map(placed),
      captured('refund:R1'),
      captured('payout:P1'),
      released('payout:P2'),
      captured('payout:P3'),
    ],
  );
}

describe('the soak checks of refunds and payouts', () => {
  it('expects a final refund’s callback after its collection’s own', () => {
    const refunded = flow('PG1', { requireConfirmation: false, refundReference: 'R1' });
    const completed = { status: 'COMPLETED', statusMessage: '' };
    expect(expectedCallbacks(refunded, completed, new Map())).toEqual(['transaction.completed']);
    expect(expectedCallbacks(refunded, completed, new Map([['R1', { status: 'FAILED', failureReason: 'x' }]]))).toEqual(
      ['transaction.completed', 'refund.failed'],
    );
  });

  it('passes money out that is final, agrees with the provider and settled once; a resend is counted apart', () => {
    const report = judge(runWithMoneyOut());
    expect(report.failures).toEqual([]);
    expect(report.figures).toMatchObject({
      moneyOutStarted: 4,
      moneyOutAccepted: 4,
      moneyOutFinal: 4,
      moneyOutLost: 0,
      moneyOutDisagreeing: 0,
      moneyOutResent: 1,
      moneyOutHoldMismatches: 0,
      ledgerSum: 0,
      callbacksExpected: 3,
      signaturesChecked: 3,
      invalidSignatures: 0,
      // From the 202 to transaction.completed: the refund's callback comes later and is not the collection's latency.
      latencyMs: { worst: 2_900 },
    });
    expect(report.lines).toContainEqual(expect.stringMatching(/^money out at the provider: .*1 sent again/));
  });

  it('fails a lost payout, one the provider disagrees with, a hold settled twice and a missing reversal credit', () => {
    const run = runWithMoneyOut();
    run.moneyOut.push(moneyOut('payout', 'P4'), moneyOut('payout', 'P5'));
    run.moneyOutFinals.set('P5', { status: 'COMPLETED', failureReason: null });
    run.atProvider.set('P5', { requestsReceived: 1, status: 'FAILED' });
    withLedger(
      run,
      run.ledger.transfers.filter((posted) => posted.transferId !== 'money-out-reversal:payout:P3'),
      [...run.ledger.holds, placed('payout:P5'), captured('payout:P5'), released('payout:P1')],
    );
    const report = judge(run);
    expect(report.figures).toMatchObject({ moneyOutLost: 1, moneyOutDisagreeing: 1, moneyOutHoldMismatches: 3 });
    expect(report.failures).toEqual(
      expect.arrayContaining([
        'not final: payout P4 (payout for the spec)',
        'payout P5 (payout for the spec) COMPLETED at Paygate, FAILED at the provider',
        'ledger: payout P1 (payout for the spec) COMPLETED: hold payout:P1 captured 1 and released 1 times',
        'ledger: payout P3 (payout for the spec) REVERSED: reversal credit money-out-reversal:payout:P3 posted 0 times',
        'ledger: payout P5 (payout for the spec) COMPLETED: capture money-out:payout:P5 posted 0 times',
      ]),
    );
  });

  it('fails a refund callback that is missing, and one that came before its collection’s', () => {
    const missing = runWithMoneyOut();
    missing.callbacks = missing.callbacks.filter((sent) => sent.event !== 'refund.completed');
    expect(judge(missing).figures).toMatchObject({ callbacksMissing: 1 });

    const early = runWithMoneyOut();
    const refund = early.callbacks.find((sent) => sent.event === 'refund.completed')!;
    early.callbacks = [refund, ...early.callbacks.filter((sent) => sent !== refund)];
    const report = judge(early);
    expect(report.figures).toMatchObject({ outOfOrder: 1 });
    expect(report.passed).toBe(false);
  });

  it('fails an answer no retry could help, and a payout never accepted', () => {
    const run = runWithMoneyOut();
    run.moneyOut.push(
      moneyOut('payout', 'P6', { acceptedAt: undefined, unexpected: ['/v1/payouts: 400 msisdn cannot receive'] }),
      moneyOut('refund', 'R2', { acceptedAt: undefined, notRequested: 'its collection ended CANCELLED' }),
    );
    const report = judge(run);
    expect(report.figures).toMatchObject({ moneyOutUnexpectedAnswers: 1, moneyOutNotRequested: 1 });
    expect(report.failures).toEqual([
      'unexpected answer: payout P6 (payout for the spec) /v1/payouts: 400 msisdn cannot receive',
      'never accepted: payout P6 (payout for the spec)',
    ]);
  });
});
