import { LEDGER_ACCOUNTS, type Transfer } from '@paygate/payments-domain';
import { callbackSignature, standardWebhookHeaders } from '@paygate/signing';
import type { Callback } from './callback-receiver';
import type { RunRecord } from './checks';
import type { Flow, Merchant } from './load';
import type { HoldEvent } from './observe';

/** Hand-made runs for the specs of the soak's checks. */
export const T0 = 1_800_000_000_000;
export const merchant: Merchant = {
  index: 0,
  id: 'm1',
  publicKey: 'pk',
  secretKey: 'sk',
  signingKey: 'signing-key-of-m1',
};
export const WALLET = LEDGER_ACCOUNTS.merchantWallet('m1', 'UGX');

export function flow(ref: string, overrides: Partial<Flow> = {}): Flow {
  return {
    kind: 'momo',
    scenario: 'momo 256772000001 confirmed',
    merchant,
    merchantReference: `ref-${ref}`,
    requireConfirmation: true,
    startedAt: T0,
    attempts: 1,
    acknowledgedAt: T0 + 100,
    internalReference: ref,
    unexpected: [],
    ...overrides,
  };
}

/**
 * A callback about collection `ref` as the dispatcher sends it, signed with the merchant's key unless told otherwise;
 * `payload` replaces the collection record's fields (a refund's, for refund.*).
 */
export function callback(
  ref: string,
  event: string,
  at: number,
  options: { webhookId?: string; key?: string; status?: string; payload?: Record<string, unknown> } = {},
): Callback {
  const payload = options.payload ?? {
    id: 1,
    merchant_reference: `ref-${ref}`,
    internal_reference: ref,
    transaction_status: options.status ?? 'COMPLETED',
  };
  const body = JSON.stringify({ event, payload });
  const webhookId = options.webhookId ?? `msg_${ref}_${event}`;
  const key = options.key ?? merchant.signingKey;
  const headers = {
    ...standardWebhookHeaders(key, webhookId, Math.floor(at / 1000), body),
    'hmac-signature': callbackSignature(key, event, payload),
  };
  return { merchant: 0, at, headers, body, event, internalReference: ref, payload };
}

export const transfer = (
  transferId: string,
  debitAccount: string,
  creditAccount: string,
  amount: number,
): Transfer => ({
  transferId,
  debitAccount,
  creditAccount,
  amount,
  currency: 'UGX',
});

/** The run's ledger and the wallet the API shows made of these transfers and hold events (balances summed). */
export function withLedger(run: RunRecord, transfers: Transfer[], holds: HoldEvent[] = []): RunRecord {
  const balances: Record<string, number> = {};
  for (const { debitAccount, creditAccount, amount } of transfers) {
    balances[debitAccount] = (balances[debitAccount] ?? 0) - amount;
    balances[creditAccount] = (balances[creditAccount] ?? 0) + amount;
  }
  run.ledger = { wallets: 1, transfers, holds, balances };
  run.walletBalances = new Map([['m1', balances[WALLET] ?? 0]]);
  return run;
}

/** One completed collection, everything right. */
export function cleanRun(): RunRecord {
  const run: RunRecord = {
    startedAt: T0,
    seconds: 60,
    apps: 8,
    flows: [flow('PG1')],
    callbacks: [
      callback('PG1', 'transaction.charges', T0 + 1_000),
      callback('PG1', 'transaction.completed', T0 + 3_000),
    ],
    finals: new Map([['PG1', { status: 'COMPLETED', statusMessage: 'Transaction completed successfully' }]]),
    prns: new Map(),
    moneyOut: [],
    moneyOutFinals: new Map(),
    atProvider: new Map(),
    ledger: { wallets: 0, transfers: [], holds: [], balances: {} },
    walletBalances: new Map(),
    injections: [],
    processEvents: [],
    retries: {},
    failOnExits: false,
  };
  return withLedger(run, [transfer('collection:PG1', 'customer_funds:UGX', WALLET, 80_000)]);
}
