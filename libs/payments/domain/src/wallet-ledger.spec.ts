/**
 * The wallet ledger (fixtures in payments-test-setup.ts). This file: every command, its
 * idempotency and its refusals; the collect-for-payment fee-hold flows end to end; the ledger
 * views; the decider's streams. The random interleavings are in wallet-ledger.property.spec.ts.
 */
import { walletId } from '@paygate/contracts';
import { LEDGER_ACCOUNTS as ACCOUNTS, WALLET_EVENT_TYPES as EVENTS } from './events';
import { UnknownEventVersion } from '@paygate/decider';
import { feeHoldId, prnHoldId, prnTransferId } from './references';
import {
  accountSum,
  decideWallet,
  emptyWallet,
  holdOf,
  ledgerBalances,
  rebuildWallet,
  transfersOf,
  type WalletCommand,
  type WalletState,
} from './wallet-ledger';
import { walletLedgerDecider } from './wallet-ledger-decider';
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
  WALLET,
} from './payments-test-setup';

const WALLET_ACCOUNT = ACCOUNTS.merchantWallet('merchant-1', 'UGX');
const run = (commands: WalletCommand[], from: WalletState = null) => commands.reduce(applyWallet, from);
const funded = (amount = 10_000) => run([topUp('top-1', amount)]);
const summary = (state: WalletState) =>
  state && { balance: state.balance, held: state.held, available: state.available };

describe('TopUp and CreditCollection', () => {
  it('a top-up moves top_up → wallet', () => {
    const events = decideWalletChecked(topUp('top-1', 5000), null);
    expect(events).toEqual([
      {
        type: EVENTS.toppedUp,
        data: {
          merchantId: 'merchant-1',
          currency: 'UGX',
          transfer: {
            transferId: 'top-up:top-1',
            debitAccount: 'top_up:UGX',
            creditAccount: WALLET_ACCOUNT,
            amount: 5000,
            currency: 'UGX',
          },
          toppedUpAt: T0,
        },
      },
    ]);
    expect(summary(run([topUp('top-1', 5000)]))).toEqual({ balance: 5000, held: 0, available: 5000 });
  });

  it("an operator's credit records who made it and why on the event; the money moves as any top-up's", () => {
    const command = {
      ...topUp('float-11', 5000),
      credit: { operator: 'ops@paygate.example', reason: 'November float' },
    };
    const [event] = decideWalletChecked(command, null);
    expect(event.data).toMatchObject({ operator: 'ops@paygate.example', reason: 'November float' });
    expect(transfersOf(event)).toEqual(transfersOf(decideWalletChecked(topUp('float-11', 5000), null)[0]));
  });

  it("an operator's credit without text for who or why is invalid_request naming the field", () => {
    const command = { ...topUp('float-12', 5000), credit: { operator: 'ops', reason: ' ' } };
    expect(rejection(() => decideWallet(command, null)).details?.errors).toEqual([
      { field: 'reason', message: "reason must be text when the top-up is an operator's credit" },
    ]);
  });

  it('a collection credit moves customer_funds → wallet and customer_funds → fee_revenue', () => {
    const [event] = decideWalletChecked(credit('PG1', 79785, 1215), null);
    expect(transfersOf(event)).toEqual([
      {
        transferId: 'collection:PG1',
        debitAccount: 'customer_funds:UGX',
        creditAccount: WALLET_ACCOUNT,
        amount: 79785,
        currency: 'UGX',
      },
      {
        transferId: 'collection-fee:PG1',
        debitAccount: 'customer_funds:UGX',
        creditAccount: 'fee_revenue:UGX',
        amount: 1215,
        currency: 'UGX',
      },
    ]);
    expect(run([credit('PG1', 79785, 1215)])?.accounts).toEqual({
      'customer_funds:UGX': -81000,
      [WALLET_ACCOUNT]: 79785,
      'fee_revenue:UGX': 1215,
    });
  });

  it('a credit without a fee posts no zero transfer', () => {
    expect(transfersOf(decideWalletChecked(credit('PG1', 500, 0), null)[0])).toHaveLength(1);
  });

  it.each<[string, WalletCommand, WalletCommand]>([
    ['top-up', topUp('top-1', 10_000), topUp('top-1', 10_001)],
    ['collection credit', credit('PG1', 79785, 1215), credit('PG1', 79785, 1000)],
  ])(
    'a redelivered %s changes nothing; the same id with other amounts is duplicate_reference',
    (_name, command, other) => {
      const state = run([command]);
      expect(decideWalletChecked(command, state)).toEqual([]);
      expect(rejection(() => decideWallet(other, state)).code).toBe('duplicate_reference');
    },
  );

  it.each<[string, WalletCommand, string]>([
    ['no merchant', topUp('t', 100, { merchantId: '', currency: 'UGX' }), 'merchantId'],
    ['an unsupported currency', topUp('t', 100, { merchantId: 'merchant-1', currency: 'XXX' }), 'currency'],
    ['an empty reference', topUp('', 100), 'reference'],
    ['a reference over 100 characters', topUp('r'.repeat(101), 100), 'reference'],
    ['a fractional amount', topUp('t', 1.5), 'amount'],
  ])('a top-up with %s is invalid_request naming the field', (_case, command, field) => {
    const refused = rejection(() => decideWallet(command, null));
    expect(refused.code).toBe('invalid_request');
    expect(refused.details?.errors).toEqual([{ field, message: expect.any(String) }]);
  });

  it.each<[string, WalletCommand]>([
    ['a zero top-up', topUp('t', 0)],
    ['a negative top-up', topUp('t', -5)],
    ['a fractional top-up', topUp('t', 1.5)],
    ['an unsafe top-up', topUp('t', 2 ** 53)],
    ['a zero credit', credit('PG1', 0, 10)],
    ['a negative fee', credit('PG1', 10, -1)],
    ['a zero hold', hold('h', 0)],
  ])('%s is invalid_request', (_name, command) => {
    expect(rejection(() => decideWallet(command, funded())).code).toBe('invalid_request');
  });
});

describe('Hold, ReleaseHold, CaptureHold', () => {
  it('a hold reduces what is available, not the balance', () => {
    const events = decideWalletChecked(hold('h1', 4000), funded());
    expect(events).toEqual([
      {
        type: EVENTS.holdPlaced,
        data: { merchantId: 'merchant-1', currency: 'UGX', holdId: 'h1', amount: 4000, placedAt: T0, purpose: 'OTHER' },
      },
    ]);
    expect(summary(run([hold('h1', 4000)], funded()))).toEqual({ balance: 10_000, held: 4000, available: 6000 });
  });

  it('a hold beyond the available balance is insufficient_funds and changes nothing', () => {
    const state = run([hold('h1', 6000)], funded());
    const error = rejection(() => decideWallet(hold('h2', 4001), state));
    expect(error.code).toBe('insufficient_funds');
    expect(error.details).toEqual({ holdId: 'h2', amount: 4001, available: 4000, balance: 10_000 });
    expect(decideWalletChecked(hold('h2', 4000), state)).toHaveLength(1);
    expect(rejection(() => decideWallet(hold('h', 1), null)).code).toBe('insufficient_funds');
  });

  it('a repeated hold changes nothing, even once released; the same id for another amount is duplicate_reference', () => {
    const state = run([hold('h1', 4000)], funded());
    expect(decideWalletChecked(hold('h1', 4000), state)).toEqual([]);
    expect(decideWalletChecked(hold('h1', 4000), run([release('h1')], state))).toEqual([]);
    expect(rejection(() => decideWallet(hold('h1', 3000), state)).code).toBe('duplicate_reference');
  });

  it('a release gives the amount back once; unknown and settled holds release nothing', () => {
    const held = run([hold('h1', 4000)], funded());
    expect(decideWalletChecked(release('h1'), held)).toEqual([
      {
        type: EVENTS.holdReleased,
        data: { merchantId: 'merchant-1', currency: 'UGX', holdId: 'h1', amount: 4000, releasedAt: T0 },
      },
    ]);
    const released = run([release('h1')], held);
    expect(summary(released)).toEqual({ balance: 10_000, held: 0, available: 10_000 });
    expect(decideWalletChecked(release('h1'), released)).toEqual([]);
    expect(decideWalletChecked(release('nope'), held)).toEqual([]);
    expect(decideWalletChecked(release('h1'), run([capture('h1', 't1')], held))).toEqual([]);
  });

  it('a capture pays the held amount out to biller_settlement: balance and held drop, available stays', () => {
    const held = run([hold('h1', 4000)], funded());
    const [event] = decideWalletChecked(capture('h1', 'pay-1'), held);
    expect(event).toEqual({
      type: EVENTS.holdCaptured,
      data: {
        merchantId: 'merchant-1',
        currency: 'UGX',
        holdId: 'h1',
        transfer: {
          transferId: 'pay-1',
          debitAccount: WALLET_ACCOUNT,
          creditAccount: 'biller_settlement:UGX',
          amount: 4000,
          currency: 'UGX',
        },
        capturedAt: T0,
      },
    });
    const captured = run([capture('h1', 'pay-1')], held);
    expect(summary(captured)).toEqual({ balance: 6000, held: 0, available: 6000 });
    expect(holdOf(captured, 'h1')).toEqual({ amount: 4000, status: 'CAPTURED' });
    expect(decideWalletChecked(capture('h1', 'pay-1'), captured)).toEqual([]);
  });

  it('refuses to capture an unknown or released hold (not_found) or under a used transfer id (duplicate_reference)', () => {
    const held = run([hold('h1', 4000)], funded());
    expect(rejection(() => decideWallet(capture('nope', 'pay-1'), held)).code).toBe('not_found');
    expect(rejection(() => decideWallet(capture('h1', 'pay-1'), run([release('h1')], held))).code).toBe('not_found');
    expect(rejection(() => decideWallet(capture('h1', 'top-up:top-1'), held)).code).toBe('duplicate_reference');
  });

  it('a hold that replaces another releases it in the same decision, so the freed amount counts', () => {
    const state = run([hold('fee', 1000)], funded(1500));
    expect(rejection(() => decideWallet(hold('prn', 1500), state)).code).toBe('insufficient_funds');
    expect(
      decideWalletChecked(hold('prn', 1500, 'fee'), state).map((event) => [
        event.type,
        'holdId' in event.data ? event.data.holdId : undefined,
      ]),
    ).toEqual([
      [EVENTS.holdReleased, 'fee'],
      [EVENTS.holdPlaced, 'prn'],
    ]);
    // Refused even with the replaced hold released: nothing changes, the replaced hold stays.
    expect(rejection(() => decideWallet(hold('prn', 1501, 'fee'), state)).code).toBe('insufficient_funds');
    // Replacing a hold that is not held places only the new one.
    expect(decideWalletChecked(hold('other', 100, 'nope'), state).map((event) => event.type)).toEqual([
      EVENTS.holdPlaced,
    ]);
  });

  it('a command routed to another wallet’s stream is a programming error', () => {
    expect(() => decideWallet(topUp('t', 1, { merchantId: 'merchant-2', currency: 'UGX' }), funded())).toThrow(
      /reached wallet merchant-1\/UGX/,
    );
  });
});

describe('collect-for-payment, end to end on the ledger', () => {
  const REF = 'PGPAY1';
  const merchantBearsFee: WalletCommand[] = [
    topUp('top-1', 5000),
    hold(feeHoldId(REF), 1215),
    credit(REF, 79785, 1215),
    hold(prnHoldId(REF), 81000, feeHoldId(REF)),
    capture(prnHoldId(REF), prnTransferId(REF)),
  ];

  it('charge_customer=false: the fee comes out of the wallet’s own balance, the PRN amount goes to the biller', () => {
    const state = run(merchantBearsFee);
    expect(summary(state)).toEqual({ balance: 3785, held: 0, available: 3785 });
    expect(state?.accounts).toEqual({
      'top_up:UGX': -5000,
      'customer_funds:UGX': -81000,
      'fee_revenue:UGX': 1215,
      'biller_settlement:UGX': 81000,
      [WALLET_ACCOUNT]: 3785,
    });
    expect(accountSum(state?.accounts ?? {})).toBe(0);
  });

  it('charge_customer=false with a wallet that cannot hold the fee: refused before anything is collected', () => {
    expect(rejection(() => decideWallet(hold(feeHoldId(REF), 1215), run([topUp('top-1', 1214)]))).code).toBe(
      'insufficient_funds',
    );
  });

  it('charge_customer=true: the credit alone covers the PRN', () => {
    const state = run([
      credit(REF, 81000, 1215),
      hold(prnHoldId(REF), 81000),
      capture(prnHoldId(REF), prnTransferId(REF)),
    ]);
    expect(summary(state)).toEqual({ balance: 0, held: 0, available: 0 });
  });

  it('the biller refuses: the PRN hold is released and the collected funds stay in the wallet', () => {
    const state = run([...merchantBearsFee.slice(0, 4), release(prnHoldId(REF)), release(feeHoldId(REF))]);
    expect(summary(state)).toEqual({ balance: 84785, held: 0, available: 84785 });
  });

  it('the collection does not complete: the fee hold is released', () => {
    expect(summary(run([...merchantBearsFee.slice(0, 2), release(feeHoldId(REF)), release(prnHoldId(REF))]))).toEqual({
      balance: 5000,
      held: 0,
      available: 5000,
    });
  });
});

describe('ledger views and the decider', () => {
  it('ledgerBalances sums the transfers of any number of wallet streams; the sum over accounts is zero', () => {
    const other = { merchantId: 'merchant-2', currency: 'UGX' };
    const events = [
      ...decideWalletChecked(topUp('a', 700), null),
      ...decideWalletChecked(credit('PG9', 90, 10, other), null),
    ];
    const balances = ledgerBalances(events);
    expect(balances).toEqual({
      'top_up:UGX': -700,
      [WALLET_ACCOUNT]: 700,
      'customer_funds:UGX': -100,
      'merchant_wallet:merchant-2:UGX': 90,
      'fee_revenue:UGX': 10,
    });
    expect(accountSum(balances)).toBe(0);
  });

  it('rebuilding from the events gives the state decided step by step', () => {
    const commands = [
      topUp('top-1', 5000),
      hold('h1', 1000),
      credit('PG1', 100, 1),
      capture('h1', 'pay-1'),
      hold('h2', 50),
      release('h2'),
    ];
    const events = commands.reduce<{ state: WalletState; events: ReturnType<typeof decideWallet> }>(
      ({ state, events }, command) => {
        const decided = decideWalletChecked(command, state);
        return { state: applyWallet(state, command), events: [...events, ...decided] };
      },
      { state: null, events: [] },
    );
    expect(rebuildWallet(events.events)).toEqual(events.state);
    expect(emptyWallet(WALLET)).toMatchObject({ account: WALLET_ACCOUNT, balance: 0, held: 0, available: 0 });
  });

  it('names the stream wallet-<merchantId>-<currency>, reads its own events back, and publishes nothing', () => {
    expect(walletLedgerDecider.streamName(walletId(WALLET))).toBe('wallet-merchant-1-UGX');
    expect(walletLedgerDecider.publish).toBeUndefined();
    expect(walletLedgerDecider.read({ type: EVENTS.holdReleased, data: { holdId: 'h' }, schemaVersion: 2 })).toEqual({
      type: EVENTS.holdReleased,
      data: { holdId: 'h' },
    });
    expect(walletLedgerDecider.read({ type: 'ServicePaymentOpened', data: {}, schemaVersion: 1 })).toBeUndefined();
    expect(() => walletLedgerDecider.read({ type: EVENTS.holdPlaced, data: {}, schemaVersion: 3 })).toThrow(
      UnknownEventVersion,
    );
  });
});
