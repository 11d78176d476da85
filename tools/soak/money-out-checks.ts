import { moneyOutReversalTransferId, moneyOutTransferId, payoutHoldId, refundHoldId } from '@paygate/payments-domain';
import type { MoneyOutFlow } from './money-out';
import type { AtProvider, Ledger, MoneyOutFinal } from './observe';
import { count, tally } from './tally';

/** What the money-out checks read of a run (RunRecord has it all). */
export interface MoneyOutRun {
  moneyOut: MoneyOutFlow[];
  /** reference → final state. */
  moneyOutFinals: Map<string, MoneyOutFinal>;
  /** reference → the sandbox provider's record; absent when it registered none. */
  atProvider: Map<string, AtProvider>;
  ledger: Ledger;
}

export interface MoneyOutFigures {
  moneyOutStarted: number;
  moneyOutAccepted: number;
  /** Refunds never asked for: their collection did not complete. */
  moneyOutNotRequested: number;
  moneyOutFinal: number;
  /** Accepted, never final. */
  moneyOutLost: number;
  /** Final, and the provider's record says otherwise. */
  moneyOutDisagreeing: number;
  /** Reached the provider more than once under their reference (refused there as a duplicate). */
  moneyOutResent: number;
  /** Final, and the wallet hold not settled once as the outcome says. */
  moneyOutHoldMismatches: number;
  moneyOutUnexpectedAnswers: number;
}

/** The provider's statuses each final status agrees with (undefined: the provider registered nothing). */
const AGREEING: Record<string, (string | undefined)[]> = {
  COMPLETED: ['SUCCESSFUL'],
  // Refused before the provider recorded anything, or recorded and failed there.
  FAILED: ['FAILED', undefined],
  REVERSED: ['REVERSED'],
  // Never approved, so never sent.
  CANCELLED: [undefined],
};

export const holdIdOf = (flow: MoneyOutFlow) =>
  flow.kind === 'refund' ? refundHoldId(flow.reference) : payoutHoldId(flow.reference);

/** The ledger counted by id: each hold's placements and settlements, and how often each transfer id was posted. */
export interface LedgerIndex {
  holds: Map<string, { placed: number; released: number; captured: number }>;
  posted: Map<string, number>;
}

export function indexLedger(ledger: Ledger): LedgerIndex {
  const holds: LedgerIndex['holds'] = new Map();
  for (const { holdId, event } of ledger.holds) {
    const hold = holds.get(holdId) ?? { placed: 0, released: 0, captured: 0 };
    hold[event] += 1;
    holds.set(holdId, hold);
  }
  const posted = new Map<string, number>();
  for (const { transferId } of ledger.transfers) posted.set(transferId, (posted.get(transferId) ?? 0) + 1);
  return { holds, posted };
}

/**
 * What is wrong with a final money-out in the ledger: its hold placed once and settled once as its outcome says
 * (captured into money_out when the provider paid, COMPLETED or REVERSED; released when it did not), and a REVERSED
 * payout credited back once; nothing for any other outcome.
 */
export function holdProblems(flow: MoneyOutFlow, status: string, ledger: LedgerIndex): string[] {
  const holdId = holdIdOf(flow);
  const { placed, released, captured } = ledger.holds.get(holdId) ?? { placed: 0, released: 0, captured: 0 };
  const paid = status === 'COMPLETED' || status === 'REVERSED';
  const problems: string[] = [];
  if (placed !== 1) problems.push(`hold ${holdId} placed ${placed} times`);
  if (captured !== (paid ? 1 : 0) || released !== (paid ? 0 : 1))
    problems.push(`hold ${holdId} captured ${captured} and released ${released} times`);
  const capture = ledger.posted.get(moneyOutTransferId(holdId)) ?? 0;
  if (capture !== (paid ? 1 : 0)) problems.push(`capture ${moneyOutTransferId(holdId)} posted ${capture} times`);
  const credit = ledger.posted.get(moneyOutReversalTransferId(holdId)) ?? 0;
  if (credit !== (status === 'REVERSED' ? 1 : 0))
    problems.push(`reversal credit ${moneyOutReversalTransferId(holdId)} posted ${credit} times`);
  return problems;
}

/**
 * Every refund and payout accepted and final, none with an answer no retry could help, each final status what the
 * sandbox provider recorded, and each hold settled once in the ledger as the outcome says.
 */
export function moneyOutChecks(run: MoneyOutRun): { lines: string[]; failures: string[]; figures: MoneyOutFigures } {
  const flows = run.moneyOut;
  const name = (flow: MoneyOutFlow) => `${flow.kind} ${flow.reference} (${flow.scenario})`;
  const unexpected = flows.flatMap((flow) => flow.unexpected.map((what) => ({ flow, what })));
  const notRequested = flows.filter((flow) => flow.notRequested !== undefined);
  const neverAccepted = flows.filter((flow) => flow.acceptedAt === undefined && flow.notRequested === undefined);
  const accepted = flows.filter((flow) => flow.acceptedAt !== undefined);
  const finals = accepted.flatMap((flow) => {
    const final = run.moneyOutFinals.get(flow.reference);
    return final ? [{ flow, status: final.status, provider: run.atProvider.get(flow.reference) }] : [];
  });
  const lost = accepted.filter((flow) => !run.moneyOutFinals.has(flow.reference));
  const disagreeing = finals.filter(({ status, provider }) => !(AGREEING[status] ?? []).includes(provider?.status));
  // The provider refuses a request under a reference it already has (MoMo answers 409 to a reused X-Reference-Id),
  // so a second request there is the same transfer sent again, after a crash before Paygate recorded that it was
  // sent, and refused: a figure, not a violation. A second transfer would have to be under another reference; a
  // status that disagrees, or a hold settled twice, is what would show money out gone wrong.
  const resent = finals.filter(({ provider }) => (provider?.requestsReceived ?? 0) > 1);
  const ledger = indexLedger(run.ledger);
  const unsettled = finals
    .map(({ flow, status }) => ({ flow, status, problems: holdProblems(flow, status, ledger) }))
    .filter(({ problems }) => problems.length > 0);
  const registered = finals.filter(({ provider }) => provider !== undefined).length;
  return {
    lines: [
      `money out: ${flows.length} refunds and payouts started (${tally(count(flows, (flow) => flow.scenario))}); ` +
        `${notRequested.length} refunds not asked for${notRequested.length ? ` (${tally(count(notRequested, (flow) => String(flow.notRequested)))})` : ''}; ` +
        `${accepted.length} accepted (${accepted.filter((flow) => flow.attempts > 1).length} only after retries), ` +
        `${finals.length} final (${tally(count(finals, ({ status }) => status))}), ${lost.length} lost; ${unexpected.length} answers no retry could help`,
      `money out at the provider: ${registered} registered, ${disagreeing.length} whose status disagrees with Paygate's, ` +
        `${resent.length} sent again after a crash (refused there as a reference already used)`,
      `money-out holds: ${finals.length - unsettled.length} of ${finals.length} final settled once as their outcome says; ${unsettled.length} not`,
    ],
    failures: [
      ...unexpected.map(({ flow, what }) => `unexpected answer: ${name(flow)} ${what}`),
      ...neverAccepted.map((flow) => `never accepted: ${name(flow)}`),
      ...lost.map((flow) => `not final: ${name(flow)}`),
      ...disagreeing.map(
        ({ flow, status, provider }) =>
          `${name(flow)} ${status} at Paygate, ${provider ? provider.status : 'never registered'} at the provider`,
      ),
      ...unsettled.flatMap(({ flow, status, problems }) =>
        problems.map((problem) => `ledger: ${name(flow)} ${status}: ${problem}`),
      ),
    ],
    figures: {
      moneyOutStarted: flows.length,
      moneyOutAccepted: accepted.length,
      moneyOutNotRequested: notRequested.length,
      moneyOutFinal: finals.length,
      moneyOutLost: lost.length,
      moneyOutDisagreeing: disagreeing.length,
      moneyOutResent: resent.length,
      moneyOutHoldMismatches: unsettled.length,
      moneyOutUnexpectedAnswers: unexpected.length,
    },
  };
}
