import type { Process, ProcessOutput } from '@paygate/decider';
import { holdOutcomeOf, type MoneyOut, type MoneyOutCommand } from './money-out';

/**
 * What a refund or payout does between its decisions: ask the provider, record what it said, and once it has said
 * for good, settle the wallet hold (and a refund's allocation). A provider that times out or answers ambiguously is
 * asked for the status with the same reference until it answers; one that says it never received the request is sent
 * it again with the same reference. Nothing is marked FAILED that the provider did not say failed.
 *
 * A payout waiting for approval is sent once approved, and cancelled (its hold released) when the approval time has
 * passed. A completed payout may still be reversed by its provider: a provider callback on it asks the status once
 * more, and for `reversalWatchMs` after completion the status is asked at each poll even without one, because a
 * callback is only a hint that may never come (MoMo does not promise one) and a reversal is most likely soon after
 * the transfer. A reversal credits the wallet back.
 */
export interface MoneyOutProcessConfig {
  /** How long after sending (or an unanswered status query) the provider is asked again. */
  statusPollMs: number;
  /** How long a money-out may stay unconfirmed before operators are shown it (needs attention). */
  attentionAfterMs: number;
  /** How long a payout may wait for approval before it is cancelled. */
  approvalTimeoutMs: number;
  /** How long after a payout completed its provider is still asked whether it reversed it. */
  reversalWatchMs: number;
}

/** The provider's word on the request, normalised by its connector. */
export type ProviderStatus =
  | { status: 'PENDING' }
  | { status: 'SUCCESSFUL'; providerTransactionId: string }
  | { status: 'FAILED'; providerReason: string }
  | { status: 'REVERSED'; providerReason: string }
  | { status: 'NOT_FOUND' };

export type MoneyOutInput =
  /** The request was recorded and its wallet hold placed (or, waiting for approval, it was approved). */
  | { type: 'Accepted' }
  /** Its timer came due: a send or status query not made, or due again. */
  | { type: 'TimerDue' }
  /** The provider called back: a hint only, so the status is asked. */
  | { type: 'Notified' }
  /** A command of the run was carried out. */
  | { type: 'Recorded' }
  | { type: 'SendAccepted' }
  /** A definite refusal of the request (a 4xx that is not "already received"). */
  | { type: 'SendRefused'; reason: string }
  /** No answer that says whether the provider registered the request (a time-out, a 5xx, no connection). */
  | { type: 'SendUnanswered'; detail: string }
  /** A status query that got no answer. */
  | { type: 'StatusUnanswered'; detail: string }
  | { type: 'StatusAnswered'; answer: ProviderStatus };

export type MoneyOutCall = { type: 'Send' } | { type: 'Status' };

/**
 * Commands of the run: the money-out's own, the settlement of its hold (the wallet) and allocation (a refund's), a
 * payout not made taken out of its day's count (the daily cap), and the wallet's credit back for a reversed payout.
 */
export type MoneyOutEffect =
  | MoneyOutCommand
  | { type: 'SettleWallet'; outcome: 'PAID' | 'NOT_PAID' }
  | { type: 'SettleAllocation'; outcome: 'PAID' | 'NOT_PAID' }
  | { type: 'UncountPayout' }
  | { type: 'CreditReversal' };

export interface MoneyOutRunState {
  moneyOut: MoneyOut;
  /** The run's clock, ISO 8601. */
  now: string;
}

type Output = ProcessOutput<MoneyOutEffect, MoneyOutCall>;

export function moneyOutProcess(
  config: MoneyOutProcessConfig,
): Process<MoneyOutInput, MoneyOutRunState, MoneyOutEffect, MoneyOutCall> {
  const later = (at: string, ms: number) => new Date(Date.parse(at) + ms).toISOString();

  /** Waiting for the provider: ask again later, and show operators one that has waited too long. */
  function wait({ moneyOut, now }: MoneyOutRunState, note: string): Output[] {
    const retry: Output = { type: 'RetryAt', at: later(now, config.statusPollMs), note };
    const overdue = Date.parse(now) - Date.parse(moneyOut.request.requestedAt) >= config.attentionAfterMs;
    return overdue && !moneyOut.needsAttention
      ? [{ type: 'Execute', command: { type: 'Flag', at: now } }, retry]
      : [retry];
  }

  /**
   * Final: the hold is captured (PAID) or released, a refund's allocation marked or released (a payout not made no
   * longer counts in its day), then recorded.
   */
  function settle({ moneyOut, now }: MoneyOutRunState): Output[] {
    const outcome = holdOutcomeOf(moneyOut);
    const refund = moneyOut.request.kind === 'REFUND';
    const alongside: Output[] = refund
      ? [{ type: 'Execute', command: { type: 'SettleAllocation', outcome } }]
      : outcome === 'NOT_PAID'
        ? [{ type: 'Execute', command: { type: 'UncountPayout' } }]
        : [];
    return [
      { type: 'Execute', command: { type: 'SettleWallet', outcome } },
      ...alongside,
      { type: 'Execute', command: { type: 'RecordHoldSettled', at: now } },
    ];
  }

  /** Whether a completed payout's provider is still asked, unprompted, whether it reversed it. */
  const watched = ({ moneyOut, now }: MoneyOutRunState) =>
    moneyOut.request.kind === 'PAYOUT' &&
    moneyOut.status === 'COMPLETED' &&
    moneyOut.completedAt !== null &&
    Date.parse(now) < Date.parse(moneyOut.completedAt) + config.reversalWatchMs;

  /** What the money-out's state calls for when nothing new was heard (`justRecorded`: a command was just carried out). */
  function next(state: MoneyOutRunState, justRecorded: boolean): Output[] {
    const { moneyOut, now } = state;
    const done: Output = { type: 'Done', note: `${moneyOut.status.toLowerCase()}, its hold settled` };
    switch (moneyOut.status) {
      case 'PENDING_APPROVAL': {
        const deadline = later(moneyOut.request.requestedAt, config.approvalTimeoutMs);
        if (Date.parse(now) < Date.parse(deadline))
          return [{ type: 'RetryAt', at: deadline, note: 'awaiting approval' }];
        return [{ type: 'Execute', command: { type: 'Cancel', reason: 'not approved in time', at: now } }];
      }
      case 'PENDING':
        if (moneyOut.sends === 0 && moneyOut.pendingReason === null) return [{ type: 'Call', call: { type: 'Send' } }];
        // Just sent or just found unconfirmed: the provider is given time before it is asked.
        if (justRecorded) return wait(state, `waiting for the provider (${moneyOut.pendingReason})`);
        return [{ type: 'Call', call: { type: 'Status' } }];
      case 'REVERSED':
        if (!moneyOut.holdSettled) return settle(state);
        if (!moneyOut.reversalCredited)
          return [
            { type: 'Execute', command: { type: 'CreditReversal' } },
            { type: 'Execute', command: { type: 'RecordReversalCredited', at: now } },
          ];
        return [{ type: 'Done', note: 'reversed, the wallet credited back' }];
      default:
        if (!moneyOut.holdSettled) return settle(state);
        if (!watched(state)) return [done];
        return justRecorded
          ? [{ type: 'RetryAt', at: later(now, config.statusPollMs), note: 'completed; watching for a reversal' }]
          : [{ type: 'Call', call: { type: 'Status' } }];
    }
  }

  /** A completed payout is asked once more on a callback, whether or not it is still watched. */
  const askAgain = ({ moneyOut }: MoneyOutRunState) =>
    moneyOut.request.kind === 'PAYOUT' && moneyOut.status === 'COMPLETED' && moneyOut.holdSettled;

  return {
    decide(input, state) {
      const { now } = state;
      switch (input.type) {
        case 'Notified':
          return askAgain(state) ? [{ type: 'Call', call: { type: 'Status' } }] : next(state, false);
        case 'Accepted':
        case 'TimerDue':
          return next(state, false);
        case 'Recorded':
          return next(state, true);
        case 'SendAccepted':
          return [{ type: 'Execute', command: { type: 'RecordSent', at: now } }];
        case 'SendRefused':
          return [{ type: 'Execute', command: { type: 'RecordFailed', reason: input.reason, at: now } }];
        case 'SendUnanswered':
          // It may have been registered: unconfirmed, never failed, until the provider says.
          return [{ type: 'Execute', command: { type: 'RecordUnconfirmed', detail: input.detail, at: now } }];
        case 'StatusUnanswered':
          return state.moneyOut.status === 'PENDING'
            ? wait(state, `status unanswered: ${input.detail}`)
            : next(state, true);
        case 'StatusAnswered': {
          const { answer } = input;
          switch (answer.status) {
            case 'SUCCESSFUL':
              return [
                {
                  type: 'Execute',
                  command: { type: 'RecordCompleted', providerTransactionId: answer.providerTransactionId, at: now },
                },
              ];
            case 'FAILED':
              return [{ type: 'Execute', command: { type: 'RecordFailed', reason: answer.providerReason, at: now } }];
            case 'REVERSED':
              return [{ type: 'Execute', command: { type: 'RecordReversed', reason: answer.providerReason, at: now } }];
            case 'NOT_FOUND':
              // Never registered: the same request again, with the same reference (a final one is not sent again).
              return state.moneyOut.status === 'PENDING'
                ? [{ type: 'Call', call: { type: 'Send' } }]
                : next(state, true);
            case 'PENDING':
              return state.moneyOut.status === 'PENDING'
                ? wait(state, 'the provider is processing it')
                : next(state, true);
          }
        }
      }
    },
  };
}
