import type { StreamDecider } from '@paygate/decider';
import { WALLET_EVENT_SCHEMA_VERSION, WALLET_EVENT_TYPES as EVENTS, WALLET_STREAM_PREFIX, type WalletEvent } from '@paygate/contracts';
import { readWalletEvent } from './read-event';
import { decideWallet, evolveWallet, type WalletCommand, type WalletState } from './wallet-ledger';

const OWN_TYPES = new Set<string>(Object.values(EVENTS));

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
  read: (stored) => readWalletEvent<WalletEvent>(OWN_TYPES, stored),
};
