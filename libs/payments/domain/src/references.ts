import { createHash } from 'node:crypto';
import type { WalletHoldPurpose } from './events';

/** Wallet hold of the fee a merchant bears (charge_customer=false), placed at PRN validation. */
export const feeHoldId = (internalReference: string) => `fee:${internalReference}`;

/** Wallet hold of the PRN amount, placed when the collection completes, captured when the biller accepts. */
export const prnHoldId = (internalReference: string) => `prn:${internalReference}`;

/** Wallet hold of a refund (its amount), placed when the refund is accepted, captured when the provider refunded. */
export const refundHoldId = (refundReference: string) => `refund:${refundReference}`;

/** Wallet hold of a payout (amount and fee), placed when the payout is accepted, captured when the provider paid. */
export const payoutHoldId = (payoutReference: string) => `payout:${payoutReference}`;

/** The capture's transfer id of a refund or payout (wallet → money_out). */
export const moneyOutTransferId = (holdId: string) => `money-out:${holdId}`;

/** The transfer id of a payout's reversal (money_out → wallet). */
export const moneyOutReversalTransferId = (holdId: string) => `money-out-reversal:${holdId}`;

/** What a hold is for, told by its id (WalletHoldPlaced version 2 records it; version 1 is upcast with this). */
export function describeHold(holdId: string): {
  purpose: WalletHoldPurpose;
  internalReference?: string;
  moneyOutReference?: string;
} {
  if (holdId.startsWith('fee:')) return { purpose: 'FEE', internalReference: holdId.slice('fee:'.length) };
  if (holdId.startsWith('prn:')) return { purpose: 'PRN_PAYMENT', internalReference: holdId.slice('prn:'.length) };
  if (holdId.startsWith('refund:')) return { purpose: 'REFUND', moneyOutReference: holdId.slice('refund:'.length) };
  if (holdId.startsWith('payout:')) return { purpose: 'PAYOUT', moneyOutReference: holdId.slice('payout:'.length) };
  return { purpose: 'OTHER' };
}

/** The capture's transfer id (wallet → biller_settlement). */
export const prnTransferId = (internalReference: string) => `prn-payment:${internalReference}`;

// Fixed namespace of the name-based UUIDs below; changing it would make retries new payments.
const NAMESPACE = Buffer.from('6f0d5a52a1b34c8e9a4f2c1d7e3b5a90', 'hex');

/**
 * The biller's idempotency key of a PRN payment: a name-based UUID (RFC 9562 version 5) of the
 * internal reference, so every retry, from any process, is the same payment and the biller
 * records at most one.
 */
export function paymentIdempotencyKey(internalReference: string): string {
  const hash = createHash('sha1').update(NAMESPACE).update(`service-payment:${internalReference}`, 'utf8').digest();
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
