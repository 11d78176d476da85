import { eventReader, type StreamDecider } from '@paygate/decider';
import { WALLET_STREAM_PREFIX } from '@paygate/contracts';
import { WALLET_EVENT_SCHEMA_VERSION, WALLET_EVENT_TYPES as EVENTS, type WalletEvent } from './events';
import { describeHold } from './references';
import { decideWallet, evolveWallet, type WalletCommand, type WalletState } from './wallet-ledger';

/**
 * Wallet events at version 1 are read upcast to 2 (WALLET_EVENT_SCHEMA_VERSION): WalletHoldPlaced
 * gains `purpose` and `internalReference`, told by its hold id as the ledger does when it writes
 * version 2. Every other type kept its shape.
 */
const readWalletEvent = eventReader<WalletEvent>({
  types: Object.values(EVENTS),
  currentVersion: WALLET_EVENT_SCHEMA_VERSION,
  upcasters: { [EVENTS.holdPlaced]: { 1: (data) => ({ ...data, ...describeHold(String(data.holdId)) }) } },
});

/**
 * The wallet ledger on the shared decider runtime: id `walletId({merchantId, currency})`,
 * stream `wallet-<merchantId>-<currency>`. It publishes nothing: balances stay in the context.
 */
export const walletLedgerDecider: StreamDecider<WalletCommand, WalletEvent, WalletState> = {
  decide: decideWallet,
  evolve: evolveWallet,
  initialState: null,
  streamName: (id) => `${WALLET_STREAM_PREFIX}${id}`,
  schemaVersion: WALLET_EVENT_SCHEMA_VERSION,
  read: readWalletEvent,
};
