import { CommandRejectedError, type WalletRef } from '@paygate/contracts';
import { LEDGER_ACCOUNTS as ACCOUNTS, WALLET_EVENT_TYPES as EVENTS, type Transfer, type WalletEvent } from './events';
import { PersistentMap } from '@paygate/decider';
import { isSupportedCurrency } from '@paygate/money';
import { describeHold, moneyOutReversalTransferId } from './references';

/**
 * The wallet ledger: one stream per merchant wallet and currency, double-entry in the manner of
 * TigerBeetle. Every movement of money is a Transfer between two accounts (merchant_wallet,
 * customer_funds, biller_settlement, fee_revenue, top_up; see LEDGER_ACCOUNTS), so the balances
 * of all accounts sum to zero. A hold reserves part of the wallet's balance without moving money:
 * available = balance − held. Invariant: neither balance nor available is ever negative; a command
 * that would break it is refused (`insufficient_funds`) and changes nothing. Every command is
 * idempotent by its transfer or hold id, so a redelivered event or a retried command moves
 * nothing twice within the idempotency window (below); the same id with different amounts is
 * refused (`duplicate_reference`).
 *
 * Fee hold semantics of collect-for-payment (for the service wiring):
 * - charge_customer=false: the merchant bears the fee, and the wallet is credited
 *   requestAmount − fee while the PRN costs requestAmount. So at PRN validation (eligible PRN
 *   only) Paygate places Hold{holdId: feeHoldId(ref), amount: fee}; a refusal
 *   (insufficient_funds) is the verdict "wallet balance cannot cover the fee"
 *   (RecordEligibility with feeHold REFUSED); success is feeHold HELD.
 * - When the collection completes: CreditCollection{ref, totalCredit, fee}, then
 *   Hold{holdId: prnHoldId(ref), amount: requestAmount, replaces: feeHoldId(ref)}: `replaces`
 *   releases the fee hold in the same append, so no other hold can take the freed fee in
 *   between (a separate ReleaseHold then Hold would race). With charge_customer=true there is
 *   no fee hold and the credit alone covers the PRN.
 * - When the biller accepts: CaptureHold{holdId: prnHoldId(ref), transferId: prnTransferId(ref),
 *   toAccount: 'biller_settlement'}.
 * - When the biller refuses for good, or retries are spent: ReleaseHold(prnHoldId(ref)); the
 *   collected funds stay in the wallet.
 * - When the collection does not complete: ReleaseHold(feeHoldId(ref)).
 * Releasing a hold that does not exist, or is no longer held, changes nothing, so the wiring may
 * release both ids whenever a payment ends without capture.
 *
 * What idempotency remembers is bounded (docs/architecture.md, "The wallet's idempotency
 * window"): the holds still HELD, and the ids of settled holds and posted transfers for two
 * periods of WALLET_IDEMPOTENCY_PERIOD_MS by the events' own time, so the state does not grow
 * with the stream and folding the stream again gives the same state.
 */
export type HoldStatus = 'HELD' | 'RELEASED' | 'CAPTURED';

export interface WalletHold {
  amount: number;
  status: HoldStatus;
}

export type SettledHold = WalletHold & { status: 'RELEASED' | 'CAPTURED' };

/** How long a settled hold or a posted transfer is remembered at least (and at most twice that): 30 days. */
export const WALLET_IDEMPOTENCY_PERIOD_MS = 30 * 24 * 60 * 60 * 1000;

/** What a redelivery is compared with: the transfer's id is the key, and the stream has one currency. */
export type PostedTransfer = Pick<Transfer, 'debitAccount' | 'creditAccount' | 'amount'>;

/** The ids settled or posted in one period; insert-only, dropped two periods on. */
export interface IdempotencyGeneration {
  holds: PersistentMap<SettledHold>;
  transfers: PersistentMap<PostedTransfer>;
}

export interface IdempotencyWindow {
  /** floor(event time / WALLET_IDEMPOTENCY_PERIOD_MS) of the latest event: the period of `current`. */
  period: number;
  current: IdempotencyGeneration;
  /** The period before `current`'s (empty when no event fell in it). */
  previous: IdempotencyGeneration;
}

export interface Wallet {
  merchantId: string;
  currency: string;
  /** merchant_wallet:<merchantId>:<currency> */
  account: string;
  /** Posted balance of the wallet account (credits − debits). */
  balance: number;
  /** Sum of the holds still HELD. */
  held: number;
  /** balance − held: what a new hold may take. */
  available: number;
  /** The holds still HELD: id → amount. As many as the payments in flight, so copied per hold event. */
  heldHolds: ReadonlyMap<string, number>;
  /**
   * The holds settled and the transfers posted in the last two periods (a busy wallet posts many, hence persistent
   * maps).
   */
  remembered: IdempotencyWindow;
  /** Balance (credits − debits) of every account this stream's transfers touched. */
  accounts: Readonly<Record<string, number>>;
}

export type WalletState = Wallet | null;

export type WalletCommand =
  /** The collection completed: customer_funds → wallet (totalCredit) and customer_funds → fee_revenue (fee). */
  | {
      type: 'CreditCollection';
      wallet: WalletRef;
      internalReference: string;
      totalCredit: number;
      fee: number;
      at: string;
    }
  /** Admin top-up: top_up → wallet; the same reference is the same top-up. */
  | {
      type: 'TopUp';
      wallet: WalletRef;
      reference: string;
      amount: number;
      /** An operator's credit: who made it and why, recorded on the event. */
      credit?: { operator: string; reason: string };
      at: string;
    }
  /** Reserve `amount` of the available balance; `replaces` names a hold released in the same append. */
  | { type: 'Hold'; wallet: WalletRef; holdId: string; amount: number; replaces?: string; at: string }
  | { type: 'ReleaseHold'; wallet: WalletRef; holdId: string; at: string }
  /** Pay the held amount out of the wallet: wallet → biller_settlement (a PRN) or wallet → money_out (refund, payout). */
  | {
      type: 'CaptureHold';
      wallet: WalletRef;
      holdId: string;
      transferId: string;
      toAccount: 'biller_settlement' | 'money_out';
      at: string;
    }
  /**
   * A provider took back a completed payout: money_out → wallet, exactly what the hold's capture moved. The hold
   * must have been captured; the same hold again changes nothing.
   */
  | { type: 'ReverseMoneyOut'; wallet: WalletRef; holdId: string; at: string };

/** A refused ledger command, with a stable code and what the merchant's wallet had. */
export class WalletRejected extends CommandRejectedError {
  constructor(
    code: 'insufficient_funds' | 'duplicate_reference' | 'not_found' | 'invalid_request',
    message: string,
    details?: Record<string, unknown>,
  ) {
    super(code, message, details);
  }
}

/** A top-up's ledger transfer: the same reference is the same top-up. */
export const topUpTransferId = (reference: string) => `top-up:${reference}`;

export const collectionTransferId = (internalReference: string) => `collection:${internalReference}`;
export const collectionFeeTransferId = (internalReference: string) => `collection-fee:${internalReference}`;

const emptyGeneration = (): IdempotencyGeneration => ({
  holds: PersistentMap.empty(),
  transfers: PersistentMap.empty(),
});

export function emptyWallet({ merchantId, currency }: WalletRef): Wallet {
  return {
    merchantId,
    currency,
    account: ACCOUNTS.merchantWallet(merchantId, currency),
    balance: 0,
    held: 0,
    available: 0,
    heldHolds: new Map(),
    remembered: { period: 0, current: emptyGeneration(), previous: emptyGeneration() },
    accounts: {},
  };
}

/** The hold by id: still held, or settled within the idempotency window; undefined when unknown or forgotten. */
export function holdOf(state: WalletState, holdId: string): WalletHold | undefined {
  const amount = state?.heldHolds.get(holdId);
  if (amount !== undefined) return { amount, status: 'HELD' };
  return state?.remembered.current.holds.get(holdId) ?? state?.remembered.previous.holds.get(holdId);
}

/** The transfer posted under this id within the idempotency window, if any. */
export function postedTransfer(state: WalletState, transferId: string): PostedTransfer | undefined {
  return state?.remembered.current.transfers.get(transferId) ?? state?.remembered.previous.transfers.get(transferId);
}

/** The idempotency period `at` (an ISO timestamp) falls in. */
export const idempotencyPeriodOf = (at: string): number => Math.floor(Date.parse(at) / WALLET_IDEMPOTENCY_PERIOD_MS);

/**
 * The wallet as of `period`: a later period starts a new current generation, keeping the one
 * before only when it was the period just before. An earlier period (a clock behind another
 * instance's) changes nothing, so ids are never dropped early and the window only moves forward.
 */
function rotatedTo(wallet: Wallet, period: number): Wallet {
  const { remembered } = wallet;
  if (!(period > remembered.period)) return wallet;
  const previous = period === remembered.period + 1 ? remembered.current : emptyGeneration();
  return { ...wallet, remembered: { period, current: emptyGeneration(), previous } };
}

function timeOf(event: WalletEvent): string {
  switch (event.type) {
    case EVENTS.collectionCredited:
      return event.data.creditedAt;
    case EVENTS.toppedUp:
      return event.data.toppedUpAt;
    case EVENTS.holdPlaced:
      return event.data.placedAt;
    case EVENTS.holdReleased:
      return event.data.releasedAt;
    case EVENTS.holdCaptured:
      return event.data.capturedAt;
    case EVENTS.moneyOutReversed:
      return event.data.reversedAt;
  }
}

// ---- evolve ----

export function evolveWallet(state: WalletState, event: WalletEvent): WalletState {
  const wallet = rotatedTo(state ?? emptyWallet(event.data), idempotencyPeriodOf(timeOf(event)));
  switch (event.type) {
    case EVENTS.collectionCredited:
      return post(wallet, event.data.transfers);
    case EVENTS.toppedUp:
      return post(wallet, [event.data.transfer]);
    case EVENTS.holdPlaced:
      return placed(wallet, event.data.holdId, event.data.amount);
    case EVENTS.holdReleased:
      return settled(wallet, event.data.holdId, { amount: event.data.amount, status: 'RELEASED' });
    case EVENTS.holdCaptured: {
      const { holdId, transfer } = event.data;
      return settled(post(wallet, [transfer]), holdId, { amount: transfer.amount, status: 'CAPTURED' });
    }
    case EVENTS.moneyOutReversed:
      return post(wallet, [event.data.transfer]);
  }
}

export function rebuildWallet(events: WalletEvent[]): WalletState {
  return events.reduce<WalletState>(evolveWallet, null);
}

function post(wallet: Wallet, posted: Transfer[]): Wallet {
  const accounts = { ...wallet.accounts };
  let { transfers } = wallet.remembered.current;
  let balance = wallet.balance;
  for (const { transferId, debitAccount, creditAccount, amount } of posted) {
    accounts[debitAccount] = (accounts[debitAccount] ?? 0) - amount;
    accounts[creditAccount] = (accounts[creditAccount] ?? 0) + amount;
    if (debitAccount === wallet.account) balance -= amount;
    if (creditAccount === wallet.account) balance += amount;
    transfers = transfers.set(transferId, { debitAccount, creditAccount, amount });
  }
  const remembered = { ...wallet.remembered, current: { ...wallet.remembered.current, transfers } };
  return { ...wallet, accounts, remembered, balance, available: balance - wallet.held };
}

function placed(wallet: Wallet, holdId: string, amount: number): Wallet {
  const heldHolds = new Map(wallet.heldHolds).set(holdId, amount);
  const held = wallet.held + amount;
  return { ...wallet, heldHolds, held, available: wallet.balance - held };
}

/** A released or captured hold leaves the held ones and is remembered in the current generation. */
function settled(wallet: Wallet, holdId: string, hold: SettledHold): Wallet {
  const heldHolds = new Map(wallet.heldHolds);
  heldHolds.delete(holdId);
  const held = wallet.held - hold.amount;
  const { current } = wallet.remembered;
  const remembered = { ...wallet.remembered, current: { ...current, holds: current.holds.set(holdId, hold) } };
  return { ...wallet, heldHolds, remembered, held, available: wallet.balance - held };
}

// ---- decide ----

export function decideWallet(command: WalletCommand, state: WalletState): WalletEvent[] {
  // The events decided carry command.at, so their evolve rotates the window the same way first.
  const wallet = rotatedTo(state ?? emptyWallet(command.wallet), idempotencyPeriodOf(command.at));
  if (wallet.merchantId !== command.wallet.merchantId || wallet.currency !== command.wallet.currency) {
    throw new Error(
      `a command for wallet ${command.wallet.merchantId}/${command.wallet.currency} reached wallet ${wallet.merchantId}/${wallet.currency}`,
    );
  }
  const events = decideFor(command, wallet);
  // The invariant, checked on the outcome whatever the command: nothing is appended that breaks it.
  const after = events.reduce<Wallet>((current, event) => evolveWallet(current, event) as Wallet, wallet);
  if (after.balance < 0 || after.available < 0) {
    throw new WalletRejected('insufficient_funds', `wallet ${wallet.account} cannot cover ${command.type}`, {
      balance: wallet.balance,
      available: wallet.available,
    });
  }
  return events;
}

function decideFor(command: WalletCommand, wallet: Wallet): WalletEvent[] {
  const { merchantId, currency, account } = wallet;
  switch (command.type) {
    case 'CreditCollection': {
      const { internalReference, totalCredit, fee, at } = command;
      assertAmount(totalCredit, 'totalCredit', 1);
      assertAmount(fee, 'fee', 0);
      const transfers: Transfer[] = [
        {
          transferId: collectionTransferId(internalReference),
          debitAccount: ACCOUNTS.customerFunds(currency),
          creditAccount: account,
          amount: totalCredit,
          currency,
        },
      ];
      // A zero transfer would move nothing; the fee transfer exists only when there is a fee.
      if (fee > 0)
        transfers.push({
          transferId: collectionFeeTransferId(internalReference),
          debitAccount: ACCOUNTS.customerFunds(currency),
          creditAccount: ACCOUNTS.feeRevenue(currency),
          amount: fee,
          currency,
        });
      if (alreadyPosted(wallet, transfers[0])) {
        const recordedFee = postedTransfer(wallet, collectionFeeTransferId(internalReference))?.amount ?? 0;
        if (recordedFee !== fee)
          throw duplicate(`collection ${internalReference} was credited with a fee of ${recordedFee}, not ${fee}`);
        return [];
      }
      return [
        {
          type: EVENTS.collectionCredited,
          data: { merchantId, currency, internalReference, transfers, creditedAt: at },
        },
      ];
    }
    case 'TopUp': {
      assertTopUp(command);
      const transfer: Transfer = {
        transferId: topUpTransferId(command.reference),
        debitAccount: ACCOUNTS.topUp(currency),
        creditAccount: account,
        amount: command.amount,
        currency,
      };
      return alreadyPosted(wallet, transfer)
        ? []
        : [
            {
              type: EVENTS.toppedUp,
              data: { merchantId, currency, transfer, toppedUpAt: command.at, ...command.credit },
            },
          ];
    }
    case 'Hold': {
      const { holdId, amount, replaces, at } = command;
      assertAmount(amount, 'amount', 1);
      const existing = holdOf(wallet, holdId);
      if (existing) {
        if (existing.amount !== amount) throw duplicate(`hold ${holdId} exists for ${existing.amount}, not ${amount}`);
        return [];
      }
      const events: WalletEvent[] = [];
      let available = wallet.available;
      const replaced = replaces === undefined ? undefined : wallet.heldHolds.get(replaces);
      if (replaces !== undefined && replaced !== undefined) {
        events.push({
          type: EVENTS.holdReleased,
          data: { merchantId, currency, holdId: replaces, amount: replaced, releasedAt: at },
        });
        available += replaced;
      }
      if (available < amount) {
        throw new WalletRejected(
          'insufficient_funds',
          `wallet ${account} has ${available} available, hold ${holdId} needs ${amount}`,
          {
            holdId,
            amount,
            available,
            balance: wallet.balance,
          },
        );
      }
      events.push({
        type: EVENTS.holdPlaced,
        data: { merchantId, currency, holdId, amount, placedAt: at, ...describeHold(holdId) },
      });
      return events;
    }
    case 'ReleaseHold': {
      const amount = wallet.heldHolds.get(command.holdId);
      return amount === undefined
        ? []
        : [
            {
              type: EVENTS.holdReleased,
              data: { merchantId, currency, holdId: command.holdId, amount, releasedAt: command.at },
            },
          ];
    }
    case 'CaptureHold': {
      const { holdId, transferId, at } = command;
      const hold = holdOf(wallet, holdId);
      if (!hold) throw new WalletRejected('not_found', `wallet ${account} has no hold ${holdId}`, { holdId });
      if (hold.status === 'CAPTURED') return [];
      if (hold.status === 'RELEASED')
        throw new WalletRejected('not_found', `hold ${holdId} was released and can no longer be captured`, { holdId });
      const creditAccount =
        command.toAccount === 'money_out' ? ACCOUNTS.moneyOut(currency) : ACCOUNTS.billerSettlement(currency);
      const transfer: Transfer = { transferId, debitAccount: account, creditAccount, amount: hold.amount, currency };
      if (postedTransfer(wallet, transferId)) throw duplicate(`transfer ${transferId} exists already`);
      return [{ type: EVENTS.holdCaptured, data: { merchantId, currency, holdId, transfer, capturedAt: at } }];
    }
    case 'ReverseMoneyOut': {
      const { holdId, at } = command;
      const hold = holdOf(wallet, holdId);
      const { purpose, moneyOutReference } = describeHold(holdId);
      if (purpose !== 'PAYOUT' || moneyOutReference === undefined || hold?.status !== 'CAPTURED')
        throw new WalletRejected('not_found', `wallet ${account} has no captured payout hold ${holdId}`, { holdId });
      const transfer: Transfer = {
        transferId: moneyOutReversalTransferId(holdId),
        debitAccount: ACCOUNTS.moneyOut(currency),
        creditAccount: account,
        amount: hold.amount,
        currency,
      };
      return alreadyPosted(wallet, transfer)
        ? []
        : [
            {
              type: EVENTS.moneyOutReversed,
              data: { merchantId, currency, moneyOutReference, transfer, reversedAt: at },
            },
          ];
    }
  }
}

/** True when the very same transfer was posted; a different transfer under its id is refused. */
function alreadyPosted(wallet: Wallet, transfer: Transfer): boolean {
  const recorded = postedTransfer(wallet, transfer.transferId);
  if (!recorded) return false;
  const same =
    recorded.debitAccount === transfer.debitAccount &&
    recorded.creditAccount === transfer.creditAccount &&
    recorded.amount === transfer.amount;
  if (!same) throw duplicate(`transfer ${transfer.transferId} exists with different accounts or amount`);
  return true;
}

function duplicate(message: string): WalletRejected {
  return new WalletRejected('duplicate_reference', message);
}

/**
 * What a top-up must be, every refusal naming its field: it arrives over the command bus
 * (payments.topUp) as JSON, so even the types are checked.
 */
function assertTopUp({
  wallet: { merchantId, currency },
  reference,
  amount,
  credit,
}: Extract<WalletCommand, { type: 'TopUp' }>): void {
  const errors: { field: string; message: string }[] = [];
  if (typeof merchantId !== 'string' || merchantId.length === 0)
    errors.push({ field: 'merchantId', message: 'merchantId is required' });
  if (!isSupportedCurrency(currency))
    errors.push({ field: 'currency', message: 'currency must be a supported currency code' });
  if (!Number.isSafeInteger(amount) || amount < 1)
    errors.push({ field: 'amount', message: 'amount must be a whole number of minor units, at least 1' });
  if (typeof reference !== 'string' || reference.length === 0 || reference.length > 100)
    errors.push({ field: 'reference', message: 'reference must be 1 to 100 characters' });
  if (credit !== undefined) {
    for (const field of ['operator', 'reason'] as const) {
      const value: unknown = credit[field];
      if (typeof value !== 'string' || value.trim().length === 0)
        errors.push({ field, message: `${field} must be text when the top-up is an operator's credit` });
    }
  }
  if (errors.length > 0)
    throw new WalletRejected('invalid_request', errors.map((error) => error.message).join('; '), { errors });
}

function assertAmount(value: number, name: string, minimum: 0 | 1): void {
  if (!Number.isSafeInteger(value) || value < minimum) {
    throw new WalletRejected(
      'invalid_request',
      `${name} must be an integer of minor units ≥ ${minimum}, got ${value}`,
      {
        errors: { [name]: `must be an integer ≥ ${minimum}` },
      },
    );
  }
}

// ---- ledger views ----

/** The transfers an event posted (holds placed or released post none). */
export function transfersOf(event: WalletEvent): Transfer[] {
  switch (event.type) {
    case EVENTS.collectionCredited:
      return event.data.transfers;
    case EVENTS.toppedUp:
    case EVENTS.holdCaptured:
    case EVENTS.moneyOutReversed:
      return [event.data.transfer];
    case EVENTS.holdPlaced:
    case EVENTS.holdReleased:
      return [];
  }
}

/**
 * Balances (credits − debits) of every account the events' transfers touched, from any number
 * of wallet streams: what a ledger projection keeps, and what the specs check the incremental
 * state against.
 */
export function ledgerBalances(events: Iterable<WalletEvent>): Record<string, number> {
  const balances: Record<string, number> = {};
  for (const event of events) {
    for (const { debitAccount, creditAccount, amount } of transfersOf(event)) {
      balances[debitAccount] = (balances[debitAccount] ?? 0) - amount;
      balances[creditAccount] = (balances[creditAccount] ?? 0) + amount;
    }
  }
  return balances;
}

/** Sum over accounts; zero for any complete set of balances, since every transfer is double-entry. */
export function accountSum(balances: Readonly<Record<string, number>>): number {
  return Object.values(balances).reduce((sum, balance) => sum + balance, 0);
}
