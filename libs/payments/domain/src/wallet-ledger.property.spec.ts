/**
 * The wallet ledger under random interleavings (fast-check, seeded): collections credited,
 * top-ups, holds (some replacing others), releases and captures (PRN payments), refunds and
 * payouts held, then captured (the provider paid), released (the provider refused) or left held
 * (the provider has not answered: a time-out), and payouts reversed, across a few merchants and
 * currencies, with ids drawn from small pools so duplicates, redeliveries and conflicts are
 * common. After every step: each account's balance is the sum of its transfers; no wallet's
 * balance or available is negative; refused commands change nothing and are refused only when
 * they must be; the sum over all accounts is zero; every hold is settled (released or captured)
 * at most once and a payout reversed at most once, only after its capture; folding the stored
 * events from scratch gives the incrementally maintained state.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CommandRejectedError, walletId, type WalletRef } from '@paygate/contracts';
import { type Transfer, type WalletEvent } from './events';
import { fold } from '@paygate/decider';
import {
  accountSum,
  decideWallet,
  evolveWallet,
  holdOf,
  ledgerBalances,
  transfersOf,
  type Wallet,
  type WalletCommand,
  type WalletState,
} from './wallet-ledger';
import { walletLedgerDecider } from './wallet-ledger-decider';
import { capture, credit, hold, release, reverse, topUp } from './payments-test-setup';

const WALLETS: WalletRef[] = ['merchant-1', 'merchant-2'].flatMap((merchantId) =>
  ['UGX', 'USD'].map((currency) => ({ merchantId, currency })),
);
const ids = (prefix: string, count: number) => fc.integer({ min: 1, max: count }).map((n) => `${prefix}${n}`);
const wallet = fc.constantFrom(...WALLETS);

// Hold ids look like the real ones (`fee:<ref>`, `prn:<ref>`), from a small pool so they collide.
const ref = ids('PG', 4);
const holdId = fc.tuple(fc.constantFrom('prn:', 'fee:'), ref).map(([kind, r]) => kind + r);
const amount = (max: number) => fc.integer({ min: 1, max });
// Money out: a refund or payout hold, then the provider's word (paid, refused, or nothing yet), sometimes a reversal.
const moneyOutHoldId = fc.tuple(fc.constantFrom('refund:', 'payout:'), ids('MO', 4)).map(([kind, r]) => kind + r);
const providerWord = fc.constantFrom('paid', 'refused', 'unconfirmed');
const moneyOut = (w: WalletRef, id: string, a: number, word: string): WalletCommand[] => [
  hold(id, a, undefined, w),
  ...(word === 'paid' ? [capture(id, `money-out:${id}`, w, 'money_out')] : word === 'refused' ? [release(id, w)] : []),
];
/**
 * One step: a single command (a fee hold among them), or a PRN payment (hold replacing the fee hold, then capture) in a
 * row.
 */
const step: fc.Arbitrary<WalletCommand[]> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .tuple(wallet, ref, amount(20_000), fc.integer({ min: 0, max: 2_000 }))
      .map(([w, r, total, fee]) => [credit(r, total, fee, w)]),
  },
  { weight: 1, arbitrary: fc.tuple(wallet, ids('top-', 4), amount(20_000)).map(([w, id, a]) => [topUp(id, a, w)]) },
  {
    weight: 3,
    arbitrary: fc
      .tuple(wallet, holdId, amount(15_000), fc.option(holdId, { nil: undefined }))
      .map(([w, id, a, replaces]) => [hold(id, a, replaces, w)]),
  },
  { weight: 2, arbitrary: fc.tuple(wallet, holdId).map(([w, id]) => [release(id, w)]) },
  {
    weight: 2,
    arbitrary: fc.tuple(wallet, holdId, ids('pay-', 6)).map(([w, id, transferId]) => [capture(id, transferId, w)]),
  },
  {
    weight: 2,
    arbitrary: fc.tuple(wallet, ref, amount(2_000)).map(([w, r, fee]) => [hold(`fee:${r}`, fee, undefined, w)]),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(wallet, ref, amount(15_000))
      .map(([w, r, a]) => [hold(`prn:${r}`, a, `fee:${r}`, w), capture(`prn:${r}`, `pay:${r}`, w)]),
  },
  {
    weight: 3,
    arbitrary: fc
      .tuple(wallet, moneyOutHoldId, amount(15_000), providerWord)
      .map(([w, id, a, word]) => moneyOut(w, id, a, word)),
  },
  // A time-out's answer arriving later: paid or refused.
  {
    weight: 1,
    arbitrary: fc
      .tuple(wallet, moneyOutHoldId, fc.boolean())
      .map(([w, id, paid]) => [paid ? capture(id, `money-out:${id}`, w, 'money_out') : release(id, w)]),
  },
  { weight: 1, arbitrary: fc.tuple(wallet, moneyOutHoldId).map(([w, id]) => [reverse(id, w)]) },
  // A payout paid, then taken back by its provider.
  {
    weight: 1,
    arbitrary: fc
      .tuple(wallet, ids('MO', 4), amount(5_000))
      .map(([w, r, a]) => [...moneyOut(w, `payout:${r}`, a, 'paid'), reverse(`payout:${r}`, w)]),
  },
);

/** A state as plain data, to prove decide() never touches the state it is given. */
const snapshot = (state: WalletState) =>
  JSON.stringify(state, (_key, value: unknown) => (value instanceof Map ? [...value.entries()] : value));

/** Balances computed the obvious way from a list of transfers: the oracle for the ledger's own bookkeeping. */
function sumTransfers(transfers: Transfer[]): Record<string, number> {
  const balances: Record<string, number> = {};
  for (const t of transfers) {
    balances[t.debitAccount] = (balances[t.debitAccount] ?? 0) - t.amount;
    balances[t.creditAccount] = (balances[t.creditAccount] ?? 0) + t.amount;
  }
  return balances;
}

const nonZero = (balances: Record<string, number>) =>
  Object.fromEntries(Object.entries(balances).filter(([, balance]) => balance !== 0));

/** Would this Hold, by its own arithmetic, fit? (New hold id only.) */
function holdFits(state: Wallet | null, command: Extract<WalletCommand, { type: 'Hold' }>): boolean {
  const available = state?.available ?? 0;
  const replaced = command.replaces === undefined ? undefined : holdOf(state, command.replaces);
  return available + (replaced?.status === 'HELD' ? replaced.amount : 0) >= command.amount;
}

const seen = { accepted: 0, refused: 0, insufficient: 0, captures: 0, replacements: 0, moneyOut: 0, reversals: 0 };

/** Each hold is settled (released or captured) at most once, and a payout reversed at most once after its capture. */
function checkSettledOnce(events: WalletEvent[]): void {
  const settled = new Set<string>();
  const captured = new Set<string>();
  const reversed = new Set<string>();
  for (const event of events) {
    const key = `${event.data.merchantId}/${event.data.currency}/`;
    if (event.type === 'WalletHoldReleased' || event.type === 'WalletHoldCaptured') {
      assert.ok(!settled.has(key + event.data.holdId), `hold ${event.data.holdId} settled twice`);
      settled.add(key + event.data.holdId);
      if (event.type === 'WalletHoldCaptured') captured.add(key + event.data.holdId);
    }
    if (event.type === 'WalletHoldPlaced') settled.delete(key + event.data.holdId);
    if (event.type === 'WalletMoneyOutReversed') {
      const holdId = `payout:${event.data.moneyOutReference}`;
      assert.ok(captured.has(key + holdId), `payout ${holdId} reversed before it was captured`);
      assert.ok(!reversed.has(key + holdId), `payout ${holdId} reversed twice`);
      reversed.add(key + holdId);
    }
  }
}

function checkRun(commands: WalletCommand[]): void {
  const states = new Map<string, WalletState>();
  const stored = new Map<string, unknown[]>();
  const allEvents: WalletEvent[] = [];
  for (const command of commands) {
    const id = walletId(command.wallet);
    const before = states.get(id) ?? null;
    const untouched = snapshot(before);
    let events: WalletEvent[];
    try {
      events = decideWallet(command, before);
    } catch (error) {
      if (!(error instanceof CommandRejectedError)) throw error;
      seen.refused++;
      assert.equal(snapshot(before), untouched, 'decide() changed the state it was given');
      if (error.code === 'insufficient_funds') {
        seen.insufficient++;
        // Refused only when it had to be: a new hold that does not fit.
        assert.ok(
          command.type === 'Hold' && !holdOf(before, command.holdId) && !holdFits(before, command),
          `insufficient_funds for a command that is not a new hold beyond the available balance: ${JSON.stringify(command)}`,
        );
      }
      continue;
    }
    assert.equal(snapshot(before), untouched, 'decide() changed the state it was given');
    if (command.type === 'Hold' && !holdOf(before, command.holdId))
      assert.ok(holdFits(before, command), `accepted a hold that does not fit: ${JSON.stringify(command)}`);
    if (events.length > 0) seen.accepted++;
    if (events.some((event) => event.type === 'WalletHoldCaptured')) seen.captures++;
    if (events.some((event) => event.type === 'WalletHoldReleased') && command.type === 'Hold') seen.replacements++;
    if (
      events.some(
        (event) => event.type === 'WalletHoldCaptured' && event.data.transfer.creditAccount.startsWith('money_out:'),
      )
    )
      seen.moneyOut++;
    if (events.some((event) => event.type === 'WalletMoneyOutReversed')) seen.reversals++;
    const after = events.reduce(evolveWallet, before);
    states.set(id, after);
    allEvents.push(...events);
    // As the store keeps them: JSON, read back through the decider.
    stored.set(id, [...(stored.get(id) ?? []), ...events.map((event) => JSON.parse(JSON.stringify(event)))]);
    // A redelivered command changes nothing.
    assert.deepEqual(decideWallet(command, after), [], 'a redelivered command decided again');

    // Every wallet: never negative, available = balance − what is still held, balance = the transfers of its stream.
    for (const [walletKey, state] of states) {
      if (!state) continue;
      assert.ok(
        state.balance >= 0 && state.available >= 0,
        `negative wallet ${state.account}: ${state.balance}/${state.available}`,
      );
      const stillHeld = [...state.heldHolds.values()].reduce((sum, amount) => sum + amount, 0);
      assert.deepEqual([state.held, state.available], [stillHeld, state.balance - stillHeld]);
      assert.equal(
        state.balance,
        sumTransfers((stored.get(walletKey) as WalletEvent[]).flatMap(transfersOf))[state.account] ?? 0,
      );
    }

    // Every account: the incrementally kept balances, the ledger view and the oracle agree; all sum to zero.
    const oracle = sumTransfers(allEvents.flatMap(transfersOf));
    const incremental: Record<string, number> = {};
    for (const state of states.values())
      for (const [account, balance] of Object.entries(state?.accounts ?? {}))
        incremental[account] = (incremental[account] ?? 0) + balance;
    assert.deepEqual(nonZero(incremental), nonZero(oracle));
    assert.deepEqual(nonZero(ledgerBalances(allEvents)), nonZero(oracle));
    assert.equal(accountSum(oracle), 0);
    checkSettledOnce(allEvents);
    for (const currency of ['UGX', 'USD'])
      assert.equal(
        accountSum(Object.fromEntries(Object.entries(oracle).filter(([account]) => account.endsWith(`:${currency}`)))),
        0,
      );

    // Folding the stored stream from scratch gives the incremental state.
    const readBack = (stored.get(id) ?? []).map((raw) => {
      const { type, data } = raw as { type: string; data: Record<string, unknown> };
      return walletLedgerDecider.read({ type, data, schemaVersion: walletLedgerDecider.schemaVersion }) as WalletEvent;
    });
    assert.deepEqual(fold(walletLedgerDecider, readBack), after);
  }
}

describe('the wallet ledger under random interleavings', () => {
  it('keeps every invariant after every step', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 30, size: 'max' }), (steps) => {
        checkRun(steps.flat());
      }),
      { seed: 20250301, numRuns: 500 },
    );
    // The generator reaches the interesting cases, so the property is not vacuous.
    expect(seen.accepted).toBeGreaterThan(1000);
    expect(seen.insufficient).toBeGreaterThan(100);
    expect(seen.captures).toBeGreaterThan(100);
    expect(seen.replacements).toBeGreaterThan(10);
    expect(seen.moneyOut).toBeGreaterThan(100);
    expect(seen.reversals).toBeGreaterThan(10);
  });
});
