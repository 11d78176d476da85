import type { Flow, Merchant } from './load';

export type MoneyOutKind = 'payout' | 'refund';

export type MoneyOutScenario =
  | { kind: 'payout'; msisdn: string; reversed: boolean; weight: number }
  | { kind: 'refund'; payer: string; weight: number };

/**
 * The money-out mix: the sandbox decides a payout by the recipient's number and a refund by the number that paid the
 * collection refunded (libs/sandbox/providers disbursement-simulator.ts).
 */
export const MONEY_OUT_SCENARIOS: MoneyOutScenario[] = [
  { kind: 'payout', msisdn: '256772000001', reversed: false, weight: 2 }, // completed
  { kind: 'payout', msisdn: '256772000002', reversed: false, weight: 1 }, // failed at the provider
  { kind: 'payout', msisdn: '256772000006', reversed: true, weight: 1 }, // completed, then reversed by the provider
  { kind: 'refund', payer: '256772000001', weight: 2 }, // refunded
  { kind: 'refund', payer: '256772000007', weight: 1 }, // refused by the provider
];

/** One money-out is started beside the collection of every this many ticks. */
export const MONEY_OUT_EVERY = 4;

const PAYOUT_AMOUNT = 10_000;
/** A refund is this share of the collection refunded (81,000: mobileMoney() in load.ts). */
const REFUND_SHARE = 0.2;

/** One refund or payout as the load generator drove it. */
export interface MoneyOutFlow {
  kind: MoneyOutKind;
  /** e.g. "payout 256772000006 (reversed)". */
  scenario: string;
  merchant: Merchant;
  /** payout_reference or refund_reference: `soak-<runId>-po-<n>` or `soak-<runId>-rf-<n>`. */
  reference: string;
  /** In the API's major units (UGX has no minor unit). */
  amount: number;
  /** A payout the provider completes and then reverses: it is final only once REVERSED. */
  reversed: boolean;
  /** A refund's collection: a flow of its own, judged as every collection. */
  collection?: Flow;
  startedAt: number;
  /** POST requests sent: more than 1 when it was retried. */
  attempts: number;
  acceptedAt?: number;
  /** Why a refund was never asked for: its collection did not complete. */
  notRequested?: string;
  /** Answers no retry could help with. */
  unexpected: string[];
}

export function moneyOutFlow(scenario: MoneyOutScenario, merchant: Merchant, runId: string, n: number): MoneyOutFlow {
  const payout = scenario.kind === 'payout';
  return {
    kind: scenario.kind,
    scenario: payout
      ? `payout ${scenario.msisdn}${scenario.reversed ? ' (reversed)' : ''}`
      : `refund of a collection from ${scenario.payer}`,
    merchant,
    reference: `soak-${runId}-${payout ? 'po' : 'rf'}-${n}`,
    amount: payout ? PAYOUT_AMOUNT : 0,
    reversed: payout && scenario.reversed,
    startedAt: Date.now(),
    attempts: 0,
    unexpected: [],
  };
}

export function payoutBody(flow: MoneyOutFlow, msisdn: string): Record<string, unknown> {
  return {
    payout_reference: flow.reference,
    currency: 'UGX',
    provider_code: 'mtn_momo_ug',
    amount: flow.amount,
    msisdn,
  };
}

/** The refund of part of `collectionAmount`; sets the flow's amount. */
export function refundBody(flow: MoneyOutFlow, internalReference: string, collectionAmount: number) {
  flow.amount = Math.round(collectionAmount * REFUND_SHARE);
  return { internal_reference: internalReference, refund_reference: flow.reference, amount: flow.amount };
}
