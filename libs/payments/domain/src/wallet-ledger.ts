import {
  CommandRejectedError,
  LEDGER_ACCOUNTS as ACCOUNTS,
  WALLET_EVENT_TYPES as EVENTS,
  type Transfer,
  type WalletEvent,
  type WalletRef,
} from '@paygate/contracts';
import { isSupportedCurrency } from '@paygate/money';
import { PersistentMap } from './persistent-map';
import { describeHold } from './references';

/**
 * The wallet ledger: one stream per merchant wallet and currency, double-entry in the manner of
 * TigerBeetle. Every movement of money is a Transfer between two accounts (merchant_wallet,
 * customer_funds, biller_settlement, fee_revenue, top_up; see LEDGER_ACCOUNTS), so the balances
 * of all accounts sum to zero. A hold reserves part of the wallet's balance without moving money:
 * available = balance − held. Invariant: neither balance nor available is ever negative; a command
 * that would break it is refused (`insufficient_funds`) and changes nothing. Every command is
 * idempotent by its transfer or hold id, so a redelivered event or a retried command moves
 * nothing twice; the same id with different amounts is refused (`duplicate_reference`).
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
 */
export type HoldStatus = 'HELD' | 'RELEASED' | 'CAPTURED';

export interface WalletHold {
  amount: number;
  status: HoldStatus;
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
  /** Every hold ever placed, by id (kept after release or capture for idempotency). */
  holds: PersistentMap<WalletHold>;
  /** Every transfer this stream posted, by id. Persistent maps: both grow with the stream. */
  transfers: PersistentMap<Transfer>;
  /** Balance (credits − debits) of every account this stream's transfers touched. */
  accounts: Readonly<Record<string, number>>;
}

export type WalletState = Wallet | null;

export type WalletCommand =
  /** The collection completed: customer_funds → wallet (totalCredit) and customer_funds → fee_revenue (fee). */
  | { type: 'CreditCollection'; wallet: WalletRef; internalReference: string; totalCredit: number; fee: number; at: string }
  /** Admin top-up: top_up → wallet; the same reference is the same top-up. */
  | { type: 'TopUp'; wallet: WalletRef; reference: string; amount: number; at: string }
  /** Reserve `amount` of the available balance; `replaces` names a hold released in the same append. */
  | { type: 'Hold'; wallet: WalletRef; holdId: string; amount: number; replaces?: string; at: string }
  | { type: 'ReleaseHold'; wallet: WalletRef; holdId: string; at: string }
  /** Pay the held amount out of the wallet: wallet → biller_settlement. */
  | { type: 'CaptureHold'; wallet: WalletRef; holdId: string; transferId: string; toAccount: 'biller_settlement'; at: string };

/** A refused ledger command, with a stable code and what the merchant's wallet had. */
export class WalletRejected extends CommandRejectedError {
  constructor(code: 'insufficient_funds' | 'duplicate_reference' | 'not_found' | 'invalid_request', message: string, details?: Record<string, unknown>) {
    super(code, message, details);
  }
}

/** A top-up's ledger transfer: the same reference is the same top-up. */
export const topUpTransferId = (reference: string) => `top-up:${reference}`;

export const collectionTransferId = (internalReference: string) => `collection:${internalReference}`;
export const collectionFeeTransferId = (internalReference: string) => `collection-fee:${internalReference}`;

export function emptyWallet({ merchantId, currency }: WalletRef): Wallet {
  return { merchantId, currency, account: ACCOUNTS.merchantWallet(merchantId, currency), balance: 0, held: 0, available: 0, holds: PersistentMap.empty(), transfers: PersistentMap.empty(), accounts: {} };
}

// ---- evolve ----

export function evolveWallet(state: WalletState, event: WalletEvent): WalletState {
  const wallet = state ?? emptyWallet(event.data);
  switch (event.type) {
    case EVENTS.collectionCredited:
      return post(wallet, event.data.transfers);
    case EVENTS.toppedUp:
      return post(wallet, [event.data.transfer]);
    case EVENTS.holdPlaced:
      return withHold(wallet, event.data.holdId, { amount: event.data.amount, status: 'HELD' }, event.data.amount);
    case EVENTS.holdReleased:
      return withHold(wallet, event.data.holdId, { amount: event.data.amount, status: 'RELEASED' }, -event.data.amount);
    case EVENTS.holdCaptured: {
      const { holdId, transfer } = event.data;
      return withHold(post(wallet, [transfer]), holdId, { amount: transfer.amount, status: 'CAPTURED' }, -transfer.amount);
    }
  }
}

export function rebuildWallet(events: WalletEvent[]): WalletState {
  return events.reduce<WalletState>(evolveWallet, null);
}

function post(wallet: Wallet, posted: Transfer[]): Wallet {
  const accounts = { ...wallet.accounts };
  let transfers = wallet.transfers;
  let balance = wallet.balance;
  for (const transfer of posted) {
    accounts[transfer.debitAccount] = (accounts[transfer.debitAccount] ?? 0) - transfer.amount;
    accounts[transfer.creditAccount] = (accounts[transfer.creditAccount] ?? 0) + transfer.amount;
    if (transfer.debitAccount === wallet.account) balance -= transfer.amount;
    if (transfer.creditAccount === wallet.account) balance += transfer.amount;
    transfers = transfers.set(transfer.transferId, transfer);
  }
  return { ...wallet, accounts, transfers, balance, available: balance - wallet.held };
}

function withHold(wallet: Wallet, holdId: string, hold: WalletHold, heldChange: number): Wallet {
  const holds = wallet.holds.set(holdId, hold);
  const held = wallet.held + heldChange;
  return { ...wallet, holds, held, available: wallet.balance - held };
}

// ---- decide ----

export function decideWallet(command: WalletCommand, state: WalletState): WalletEvent[] {
  const wallet = state ?? emptyWallet(command.wallet);
  if (wallet.merchantId !== command.wallet.merchantId || wallet.currency !== command.wallet.currency) {
    throw new Error(`a command for wallet ${command.wallet.merchantId}/${command.wallet.currency} reached wallet ${wallet.merchantId}/${wallet.currency}`);
  }
  const events = decideFor(command, wallet);
  // The invariant, checked on the outcome whatever the command: nothing is appended that breaks it.
  const after = events.reduce<Wallet>((current, event) => evolveWallet(current, event) as Wallet, wallet);
  if (after.balance < 0 || after.available < 0) {
    throw new WalletRejected('insufficient_funds', `wallet ${wallet.account} cannot cover ${command.type}`, { balance: wallet.balance, available: wallet.available });
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
      const transfers: Transfer[] = [{ transferId: collectionTransferId(internalReference), debitAccount: ACCOUNTS.customerFunds(currency), creditAccount: account, amount: totalCredit, currency }];
      // A zero transfer would move nothing; the fee transfer exists only when there is a fee.
      if (fee > 0) transfers.push({ transferId: collectionFeeTransferId(internalReference), debitAccount: ACCOUNTS.customerFunds(currency), creditAccount: ACCOUNTS.feeRevenue(currency), amount: fee, currency });
      if (alreadyPosted(wallet, transfers[0])) {
        const recordedFee = wallet.transfers.get(collectionFeeTransferId(internalReference))?.amount ?? 0;
        if (recordedFee !== fee) throw duplicate(`collection ${internalReference} was credited with a fee of ${recordedFee}, not ${fee}`);
        return [];
      }
      return [{ type: EVENTS.collectionCredited, data: { merchantId, currency, internalReference, transfers, creditedAt: at } }];
    }
    case 'TopUp': {
      assertTopUp(command);
      const transfer: Transfer = { transferId: topUpTransferId(command.reference), debitAccount: ACCOUNTS.topUp(currency), creditAccount: account, amount: command.amount, currency };
      return alreadyPosted(wallet, transfer) ? [] : [{ type: EVENTS.toppedUp, data: { merchantId, currency, transfer, toppedUpAt: command.at } }];
    }
    case 'Hold': {
      const { holdId, amount, replaces, at } = command;
      assertAmount(amount, 'amount', 1);
      const existing = wallet.holds.get(holdId);
      if (existing) {
        if (existing.amount !== amount) throw duplicate(`hold ${holdId} exists for ${existing.amount}, not ${amount}`);
        return [];
      }
      const events: WalletEvent[] = [];
      let available = wallet.available;
      const replaced = replaces === undefined ? undefined : wallet.holds.get(replaces);
      if (replaces !== undefined && replaced?.status === 'HELD') {
        events.push({ type: EVENTS.holdReleased, data: { merchantId, currency, holdId: replaces, amount: replaced.amount, releasedAt: at } });
        available += replaced.amount;
      }
      if (available < amount) {
        throw new WalletRejected('insufficient_funds', `wallet ${account} has ${available} available, hold ${holdId} needs ${amount}`, { holdId, amount, available, balance: wallet.balance });
      }
      events.push({ type: EVENTS.holdPlaced, data: { merchantId, currency, holdId, amount, placedAt: at, ...describeHold(holdId) } });
      return events;
    }
    case 'ReleaseHold': {
      const hold = wallet.holds.get(command.holdId);
      return hold?.status === 'HELD' ? [{ type: EVENTS.holdReleased, data: { merchantId, currency, holdId: command.holdId, amount: hold.amount, releasedAt: command.at } }] : [];
    }
    case 'CaptureHold': {
      const { holdId, transferId, at } = command;
      const hold = wallet.holds.get(holdId);
      if (!hold) throw new WalletRejected('not_found', `wallet ${account} has no hold ${holdId}`, { holdId });
      if (hold.status === 'CAPTURED') return [];
      if (hold.status === 'RELEASED') throw new WalletRejected('not_found', `hold ${holdId} was released and can no longer be captured`, { holdId });
      const transfer: Transfer = { transferId, debitAccount: account, creditAccount: ACCOUNTS.billerSettlement(currency), amount: hold.amount, currency };
      if (wallet.transfers.has(transferId)) throw duplicate(`transfer ${transferId} exists already`);
      return [{ type: EVENTS.holdCaptured, data: { merchantId, currency, holdId, transfer, capturedAt: at } }];
    }
  }
}

/** True when the very same transfer was posted; a different transfer under its id is refused. */
function alreadyPosted(wallet: Wallet, transfer: Transfer): boolean {
  const recorded = wallet.transfers.get(transfer.transferId);
  if (!recorded) return false;
  const same = recorded.debitAccount === transfer.debitAccount && recorded.creditAccount === transfer.creditAccount && recorded.amount === transfer.amount && recorded.currency === transfer.currency;
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
function assertTopUp({ wallet: { merchantId, currency }, reference, amount }: Extract<WalletCommand, { type: 'TopUp' }>): void {
  const errors: { field: string; message: string }[] = [];
  if (typeof merchantId !== 'string' || merchantId.length === 0) errors.push({ field: 'merchantId', message: 'merchantId is required' });
  if (!isSupportedCurrency(currency)) errors.push({ field: 'currency', message: 'currency must be a supported currency code' });
  if (!Number.isSafeInteger(amount) || amount < 1) errors.push({ field: 'amount', message: 'amount must be a whole number of minor units, at least 1' });
  if (typeof reference !== 'string' || reference.length === 0 || reference.length > 100) errors.push({ field: 'reference', message: 'reference must be 1 to 100 characters' });
  if (errors.length > 0) throw new WalletRejected('invalid_request', errors.map((error) => error.message).join('; '), { errors });
}

function assertAmount(value: number, name: string, minimum: 0 | 1): void {
  if (!Number.isSafeInteger(value) || value < minimum) {
    throw new WalletRejected('invalid_request', `${name} must be an integer of minor units ≥ ${minimum}, got ${value}`, { errors: { [name]: `must be an integer ≥ ${minimum}` } });
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
