import type { CollectionRequest } from './collections/commands';

/** The sandbox PRN that exists from the start (docs/api.md, Sandbox): it can be paid once. */
export const STANDING_PRN = '2250000001301';
export const STANDING_PRN_AMOUNT = 25_000;
/** 13 digits no sandbox PRN has: the biller answers "not found". */
const UNKNOWN_PRN = '2259999999999';

/**
 * A real sandbox collection that makes the sandbox produce a callback event: the request (without its
 * merchant_reference) whose magic values choose the outcome (docs/api.md, Sandbox), and for a refund event
 * the refund of it once COMPLETED. Nothing is forged.
 */
export interface SandboxTrigger {
  /** What the sandbox does, in a few words. */
  how: string;
  /** The callbacks the merchant will get, in order. */
  expect: string[];
  /** initialize, or collect-for-payment (the request has a PRN). */
  request: (prn?: string) => Omit<CollectionRequest, 'merchant_reference'>;
  needsPayablePrn?: boolean;
  /** Confirm the collection once accepted, so nothing is left pending for a later callback. */
  confirm?: boolean;
  /**
   * Once the collection is COMPLETED, refund this much of it (major units): less than the wallet got, so a fresh
   * merchant's wallet covers it. Only `paygate trigger` runs these: it waits for the collection to complete.
   */
  refundAmount?: number;
  /**
   * Once the collection is COMPLETED and the wallet holds `covers` (the amount and the sandbox provider's payout fee,
   * config/providers.json), pay `amount` (major units) out to `msisdn`, whose last four digits choose the outcome.
   */
  payout?: { msisdn: string; amount: number; covers: number };
}

/** A mobile money collection on the sandbox, whose msisdn's last four digits choose the outcome. */
const momo = (
  msisdn: string,
  overrides: Partial<Omit<CollectionRequest, 'merchant_reference'>> = {},
): Omit<CollectionRequest, 'merchant_reference'> => ({
  transaction_method: 'MOBILE_MONEY',
  provider_code: 'mtn_momo_ug',
  currency: 'UGX',
  amount: 1_000,
  msisdn,
  customer_name: 'Paygate sandbox trigger',
  description: 'sandbox trigger',
  charge_customer: false,
  require_confirmation: false,
  ...overrides,
});

/**
 * A collection from 256772000001 that funds the wallet (2,000 less its 100 fee), then a payout of 1,000 (and its 500
 * fee) to `msisdn`. Its callbacks go to the payouts callback URL, the collection's to the collection callback URL.
 */
function payoutTrigger(msisdn: string, outcome: string, ...payoutCallbacks: string[]): SandboxTrigger {
  return {
    how: `a mobile money collection from 256772000001, then a payout of 1,000 from the wallet to ${msisdn} (${outcome})`,
    expect: ['transaction.completed', ...payoutCallbacks],
    request: () => momo('256772000001', { amount: 2_000 }),
    payout: { msisdn, amount: 1_000, covers: 1_500 },
  };
}

/** Every callback event the gateway sends, each made by a real sandbox collection (`paygate trigger`, the dashboard). */
export const SANDBOX_TRIGGERS: Readonly<Record<string, SandboxTrigger>> = {
  'transaction.charges': {
    how: 'a mobile money collection from 256772000001 that asks for confirmation, then confirmed (the sandbox completes it)',
    // Left unconfirmed, it would be cancelled half an hour later (CONFIRMATION_TIMEOUT_MS): a callback nobody expects.
    expect: ['transaction.charges', 'transaction.completed'],
    request: () => momo('256772000001', { require_confirmation: true }),
    confirm: true,
  },
  'transaction.completed': {
    how: 'a mobile money collection from 256772000001 (the sandbox completes it)',
    expect: ['transaction.completed'],
    request: () => momo('256772000001'),
  },
  'transaction.failed': {
    how: 'a mobile money collection from 256772000002 (the sandbox answers Balance Insufficient)',
    expect: ['transaction.failed'],
    request: () => momo('256772000002'),
  },
  'transaction.cancelled': {
    how: 'a mobile money collection from 256772000003 (the customer declines)',
    expect: ['transaction.cancelled'],
    request: () => momo('256772000003'),
  },
  'payment.completed': {
    how: 'a collect-for-payment collection from 256772000001 paying a sandbox PRN',
    expect: ['transaction.completed', 'payment.completed'],
    // The customer pays the fee, so the merchant's wallet needs no top-up.
    request: (prn) => momo('256772000001', { amount: STANDING_PRN_AMOUNT, prn, charge_customer: true }),
    needsPayablePrn: true,
  },
  'payment.failed': {
    how: `a collect-for-payment collection for PRN ${UNKNOWN_PRN}, which the sandbox biller does not know`,
    expect: ['payment.failed', 'transaction.cancelled'],
    request: () => momo('256772000001', { amount: STANDING_PRN_AMOUNT, prn: UNKNOWN_PRN, charge_customer: true }),
  },
  'refund.completed': {
    how: 'a mobile money collection from 256772000001, half of it refunded once completed (the sandbox refunds it)',
    expect: ['transaction.completed', 'refund.completed'],
    request: () => momo('256772000001'),
    refundAmount: 500,
  },
  'refund.failed': {
    how: 'a mobile money collection from 256772000007, half of it refunded once completed (the provider refuses refunds of it)',
    expect: ['transaction.completed', 'refund.failed'],
    request: () => momo('256772000007'),
    refundAmount: 500,
  },
  'payout.completed': payoutTrigger('256772000001', 'the sandbox completes it', 'payout.completed'),
  'payout.failed': payoutTrigger('256772000002', 'the provider fails it', 'payout.failed'),
  'payout.reversed': payoutTrigger(
    '256772000006',
    'the provider completes it, then reverses it and the wallet is credited back',
    'payout.completed',
    'payout.reversed',
  ),
};

export const SANDBOX_TRIGGER_EVENTS = Object.keys(SANDBOX_TRIGGERS);

/**
 * The triggers one collection makes, which the dashboard runs; a refund or payout trigger waits for its collection to
 * complete.
 */
export const DASHBOARD_TRIGGER_EVENTS = SANDBOX_TRIGGER_EVENTS.filter(
  (event) => SANDBOX_TRIGGERS[event].refundAmount === undefined && SANDBOX_TRIGGERS[event].payout === undefined,
);
