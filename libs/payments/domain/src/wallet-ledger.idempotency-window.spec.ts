/**
 * The wallet ledger's idempotency window (fixtures in payments-test-setup.ts): settled holds and
 * posted transfers are remembered by id for two periods of WALLET_IDEMPOTENCY_PERIOD_MS of the
 * events' own time, holds still held for as long as they are held, so the state stays bounded
 * and folding the stream again gives the same state.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CommandRejectedError } from '@paygate/contracts';
import { type WalletEvent } from './events';
import { fold, type StoredEvent } from '@paygate/decider';
import { walletLedgerDecider } from './wallet-ledger-decider';
import {
  collectionTransferId,
  decideWallet,
  holdOf,
  postedTransfer,
  WALLET_IDEMPOTENCY_PERIOD_MS as PERIOD,
  type WalletCommand,
  type WalletState,
} from './wallet-ledger';
import {
  applyWallet,
  capture,
  credit,
  decideWalletChecked,
  hold,
  rejection,
  release,
  T0,
  topUp,
} from './payments-test-setup';

/** Period numbers count from T0's period; `inPeriod(n, ms)` is `ms` after the first instant of period n. */
const P0 = Math.floor(Date.parse(T0) / PERIOD);
const START = P0 * PERIOD;
const inPeriod = (n: number, ms = 0) => new Date(START + n * PERIOD + ms).toISOString();
const LAST_MS = PERIOD - 1;
const on = (at: string, command: WalletCommand): WalletCommand => ({ ...command, at });
const run = (steps: WalletCommand[], from: WalletState = null) => steps.reduce(applyWallet, from);
const idsOf = (state: WalletState) =>
  state && {
    period: state.remembered.period,
    current: [...state.remembered.current.transfers.keys(), ...state.remembered.current.holds.keys()].sort(),
    previous: [...state.remembered.previous.transfers.keys(), ...state.remembered.previous.holds.keys()].sort(),
    held: [...state.heldHolds.keys()].sort(),
  };

describe('within the window a redelivery or retry changes nothing', () => {
  it.each<[string, WalletCommand, WalletCommand]>([
    ['collection credit', credit('PG1', 79785, 1215), credit('PG1', 79785, 1000)],
    ['top-up', topUp('top-1', 5000), topUp('top-1', 5001)],
  ])('a %s posted at the very end of a period is still recognised a full period later', (_name, command, other) => {
    const state = run([on(inPeriod(0, LAST_MS), command)]);
    const later = inPeriod(1, LAST_MS);
    expect(decideWalletChecked(on(later, command), state)).toEqual([]);
    expect(rejection(() => decideWallet(on(later, other), state)).code).toBe('duplicate_reference');
  });

  it('a released or captured hold is not placed again, nor captured again, after one rotation', () => {
    const state = run([
      on(inPeriod(0), topUp('top-1', 10_000)),
      on(inPeriod(0), hold('fee:PG1', 300)),
      on(inPeriod(0), hold('prn:PG1', 4000)),
      on(inPeriod(0, LAST_MS), release('fee:PG1')),
      on(inPeriod(0, LAST_MS), capture('prn:PG1', 'pay:PG1')),
    ]);
    const later = inPeriod(1, LAST_MS);
    expect(decideWalletChecked(on(later, hold('fee:PG1', 300)), state)).toEqual([]);
    expect(rejection(() => decideWallet(on(later, hold('fee:PG1', 301)), state)).code).toBe('duplicate_reference');
    expect(decideWalletChecked(on(later, capture('prn:PG1', 'pay:PG1')), state)).toEqual([]);
    expect(rejection(() => decideWallet(on(later, capture('fee:PG1', 'pay:other')), state)).code).toBe('not_found');
    expect(decideWalletChecked(on(later, release('prn:PG1')), state)).toEqual([]);
  });

  it('a transfer id used by a capture is refused for another capture after one rotation', () => {
    const state = run([
      on(inPeriod(0), topUp('top-1', 10_000)),
      on(inPeriod(0), hold('h1', 100)),
      on(inPeriod(0), capture('h1', 'pay-1')),
      on(inPeriod(1), hold('h2', 100)),
    ]);
    expect(rejection(() => decideWallet(on(inPeriod(1, LAST_MS), capture('h2', 'pay-1')), state)).code).toBe(
      'duplicate_reference',
    );
  });

  it('a hold still held is never forgotten, however many periods pass', () => {
    const state = run([
      on(inPeriod(0), topUp('top-1', 10_000)),
      on(inPeriod(0), hold('prn:PG1', 4000)),
      on(inPeriod(5), topUp('top-2', 1)),
    ]);
    expect(holdOf(state, 'prn:PG1')).toEqual({ amount: 4000, status: 'HELD' });
    expect(decideWalletChecked(on(inPeriod(9), hold('prn:PG1', 4000)), state)).toEqual([]);
    expect(decideWalletChecked(on(inPeriod(9), capture('prn:PG1', 'pay:PG1')), state)).toHaveLength(1);
  });

  it('an event stamped earlier than the window’s period (a clock behind) is remembered in the current generation', () => {
    const state = run([on(inPeriod(3), topUp('top-1', 100)), on(inPeriod(2), credit('PG1', 500, 0))]);
    expect(idsOf(state)).toEqual({
      period: P0 + 3,
      current: ['collection:PG1', 'top-up:top-1'],
      previous: [],
      held: [],
    });
    expect(decideWalletChecked(on(inPeriod(4), credit('PG1', 500, 0)), state)).toEqual([]);
  });
});

describe('after the window an id is forgotten', () => {
  it('a collection credited two periods before a redelivery is credited again (docs/architecture.md: the idempotency window)', () => {
    const state = run([on(inPeriod(0, LAST_MS), credit('PG1', 500, 0))]);
    expect(postedTransfer(state, collectionTransferId('PG1'))).toEqual({
      debitAccount: 'customer_funds:UGX',
      creditAccount: 'merchant_wallet:merchant-1:UGX',
      amount: 500,
    });
    expect(decideWalletChecked(on(inPeriod(2), credit('PG1', 500, 0)), state)).toHaveLength(1);
  });

  it('a period without events drops both generations', () => {
    const state = run([
      on(inPeriod(0), credit('PG1', 500, 0)),
      on(inPeriod(1), credit('PG2', 500, 0)),
      on(inPeriod(3), topUp('top-1', 100)),
    ]);
    expect(idsOf(state)).toEqual({ period: P0 + 3, current: ['top-up:top-1'], previous: [], held: [] });
    expect(state).toMatchObject({ balance: 1100, available: 1100 });
  });
});

describe('the state is bounded', () => {
  it('after many periods it keeps the last two generations and the holds still held, whatever the stream’s length', () => {
    const busyPeriod = (n: number): WalletCommand[] => [
      on(inPeriod(n), credit(`PG${n}`, 1000, 10)),
      on(inPeriod(n), hold(`prn:PG${n}`, 1000)),
      on(inPeriod(n, 1), capture(`prn:PG${n}`, `pay:PG${n}`)),
      on(inPeriod(n, 2), hold(`fee:PGX${n}`, 5)),
      ...(n > 0 ? [on(inPeriod(n, 3), release(`fee:PGX${n - 1}`))] : []),
    ];
    const state = run([
      on(inPeriod(0), topUp('top-1', 100)),
      ...Array.from({ length: 12 }, (_, n) => busyPeriod(n)).flat(),
    ]);
    expect(idsOf(state)).toEqual({
      period: P0 + 11,
      current: ['collection-fee:PG11', 'collection:PG11', 'fee:PGX10', 'pay:PG11', 'prn:PG11'],
      previous: ['collection-fee:PG10', 'collection:PG10', 'fee:PGX9', 'pay:PG10', 'prn:PG10'],
      held: ['fee:PGX11'],
    });
    expect(state).toMatchObject({
      balance: 100,
      held: 5,
      available: 95,
      accounts: { 'fee_revenue:UGX': 120, 'biller_settlement:UGX': 12_000 },
    });
  });
});

describe('replaying the stream gives the state kept step by step', () => {
  const wallet = { merchantId: 'merchant-1', currency: 'UGX' };
  const ref = fc.integer({ min: 1, max: 5 }).map((n) => `PG${n}`);
  const command: fc.Arbitrary<WalletCommand> = fc.oneof(
    fc
      .tuple(ref, fc.integer({ min: 1, max: 5000 }), fc.integer({ min: 0, max: 100 }))
      .map(([r, total, fee]) => credit(r, total, fee, wallet)),
    fc.tuple(ref, fc.integer({ min: 1, max: 5000 })).map(([r, amount]) => topUp(r, amount, wallet)),
    fc.tuple(ref, fc.integer({ min: 1, max: 3000 })).map(([r, amount]) => hold(`prn:${r}`, amount, undefined, wallet)),
    ref.map((r) => release(`prn:${r}`, wallet)),
    ref.map((r) => capture(`prn:${r}`, `pay:${r}`, wallet)),
  );
  /** Each command a few days or periods after the one before (sometimes earlier: a clock behind). */
  const timed = fc.array(fc.tuple(command, fc.integer({ min: -2, max: 40 })), { minLength: 1, maxLength: 60 });

  it('across rotations, and the window keeps no id older than the period before the current one', () => {
    let rotations = 0;
    fc.assert(
      fc.property(timed, (steps) => {
        let clock = START;
        let state: WalletState = null;
        const events: WalletEvent[] = [];
        /** The latest period each id was in the current generation. */
        const lastCurrent = new Map<string, number>();
        for (const [next, days] of steps) {
          clock += days * 24 * 60 * 60 * 1000;
          const at = new Date(clock).toISOString();
          let decided: WalletEvent[];
          try {
            decided = decideWallet(on(at, next), state);
          } catch (error) {
            if (error instanceof CommandRejectedError) continue;
            throw error;
          }
          const before = state?.remembered.period;
          state = decided.reduce(walletLedgerDecider.evolve, state);
          if (before !== undefined && state && state.remembered.period > before) rotations++;
          events.push(...decided);
          for (const id of idsOf(state)?.current ?? []) lastCurrent.set(id, state?.remembered.period ?? 0);
        }
        // As the store keeps them: JSON, read back through the decider.
        const stored = events.map(
          (event) =>
            walletLedgerDecider.read({
              ...(JSON.parse(JSON.stringify(event)) as StoredEvent),
              schemaVersion: walletLedgerDecider.schemaVersion,
            }) as WalletEvent,
        );
        assert.deepEqual(fold(walletLedgerDecider, stored), state);
        // The previous generation is exactly the period before the current one: nothing older survives a rotation.
        for (const id of idsOf(state)?.previous ?? [])
          assert.equal(lastCurrent.get(id), (state?.remembered.period ?? 0) - 1, `${id} outlived the window`);
      }),
      { seed: 20250302, numRuns: 200 },
    );
    // The clock moves far enough that the window rotates, so the property is not vacuous.
    expect(rotations).toBeGreaterThan(200);
  });
});
