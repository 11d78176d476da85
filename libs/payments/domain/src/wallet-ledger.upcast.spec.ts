/**
 * Wallet events version 1 → 2: a WalletHoldPlaced written before holds said what they are for
 * is read back with `purpose` and `internalReference`, told by its hold id exactly as the ledger
 * writes them today, and conforms to today's schema.
 */
import { WALLET_EVENT_TYPES as EVENTS, WALLET_EVENT_SCHEMAS, WALLET_EVENT_SCHEMAS_V1 } from './events';
import { feeHoldId, prnHoldId } from './references';
import { walletLedgerDecider } from './wallet-ledger-decider';
import { applyWallet, hold, schemaErrors, T0, topUp } from './payments-test-setup';
import { decideWallet } from './wallet-ledger';
import { UnknownEventVersion } from '@paygate/decider';

const REF = 'PGUPCAST0000000000000001';
const v1Hold = (holdId: string) => ({ merchantId: 'merchant-1', currency: 'UGX', holdId, amount: 1_500, placedAt: T0 });

describe('reading wallet events of version 1', () => {
  it.each<[string, string, Record<string, unknown>]>([
    ['a fee hold', feeHoldId(REF), { purpose: 'FEE', internalReference: REF }],
    ['a PRN hold', prnHoldId(REF), { purpose: 'PRN_PAYMENT', internalReference: REF }],
    ['a hold of any other id', 'manual-7', { purpose: 'OTHER' }],
  ])('%s gains its purpose and collection', (_what, holdId, added) => {
    const stored = v1Hold(holdId);
    expect(schemaErrors(WALLET_EVENT_SCHEMAS_V1[EVENTS.holdPlaced], stored)).toEqual([]);
    expect(schemaErrors(WALLET_EVENT_SCHEMAS[EVENTS.holdPlaced], stored)).toEqual(['$.purpose: missing']);

    const read = walletLedgerDecider.read({ type: EVENTS.holdPlaced, data: stored, schemaVersion: 1 });
    expect(read).toEqual({ type: EVENTS.holdPlaced, data: { ...stored, ...added } });
    expect(schemaErrors(WALLET_EVENT_SCHEMAS[EVENTS.holdPlaced], read!.data)).toEqual([]);
  });

  it('reads the same hold as the ledger writes it today', () => {
    const [written] = decideWallet(hold(feeHoldId(REF), 1_500), applyWallet(null, topUp('top-1', 5_000)));
    expect(
      walletLedgerDecider.read({ type: EVENTS.holdPlaced, data: v1Hold(feeHoldId(REF)), schemaVersion: 1 }),
    ).toEqual(written);
  });

  it('leaves the other wallet events as they were', () => {
    const released = {
      merchantId: 'merchant-1',
      currency: 'UGX',
      holdId: feeHoldId(REF),
      amount: 1_500,
      releasedAt: T0,
    };
    expect(walletLedgerDecider.read({ type: EVENTS.holdReleased, data: released, schemaVersion: 1 })).toEqual({
      type: EVENTS.holdReleased,
      data: released,
    });
  });

  it('refuses a version written by a newer release rather than misread it', () => {
    expect(() => walletLedgerDecider.read({ type: EVENTS.holdPlaced, data: v1Hold('x'), schemaVersion: 3 })).toThrow(
      UnknownEventVersion,
    );
  });
});
