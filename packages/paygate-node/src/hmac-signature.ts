import { createHmac, timingSafeEqual } from 'node:crypto';

/** The record fields Paygate's `hmac-signature` (and a card redirect's `hmac_signature`) covers. */
export interface CollectionSignatureFields {
  id: number | string;
  internal_reference: string;
  transaction_status: string;
  merchant_reference: string;
}

/** The fields the `hmac-signature` of a refund callback (`refund.*`) covers. */
export interface RefundSignatureFields {
  refund_reference: string;
  internal_reference: string;
  status: string;
  merchant_reference: string;
}

/** The fields the `hmac-signature` of a payout callback (`payout.*`) covers. */
export interface PayoutSignatureFields {
  payout_reference: string;
  status: string;
  provider_code: string;
  msisdn: string;
}

const HEX_SHA256 = /^[0-9a-f]{64}$/i;

const hmacHex = (signingKey: string, message: string) =>
  createHmac('sha256', Buffer.from(signingKey, 'utf8')).update(message, 'utf8').digest('hex');

/** Constant-time comparison of a hex signature (either case) with the expected one; false for anything malformed. */
function matches(expectedHex: string, signature: string): boolean {
  // Buffer.from(…, 'hex') silently drops bad characters, so validate the shape first.
  if (typeof signature !== 'string' || !HEX_SHA256.test(signature)) return false;
  return timingSafeEqual(Buffer.from(expectedHex, 'hex'), Buffer.from(signature, 'hex'));
}

/**
 * Lowercase hex HMAC-SHA256 over "id:internal_reference:transaction_status:merchant_reference",
 * keyed with the UTF-8 bytes of the merchant's signing key. This string format is published to
 * merchants, so it must never change.
 */
export function collectionSignature(signingKey: string, record: CollectionSignatureFields): string {
  return hmacHex(
    signingKey,
    `${record.id}:${record.internal_reference}:${record.transaction_status}:${record.merchant_reference}`,
  );
}

/** Constant-time check of a hex signature (either case); false for anything malformed. */
export function verifyCollectionSignature(
  signingKey: string,
  record: CollectionSignatureFields,
  signature: string,
): boolean {
  return matches(collectionSignature(signingKey, record), signature);
}

/**
 * A refund callback's `hmac-signature`: lowercase hex HMAC-SHA256 over
 * "refund_reference:internal_reference:status:merchant_reference" (the refund's fields where a
 * collection callback has id and transaction_status), keyed as collectionSignature. Published to
 * merchants, so it must never change.
 */
export function refundSignature(signingKey: string, refund: RefundSignatureFields): string {
  return hmacHex(
    signingKey,
    `${refund.refund_reference}:${refund.internal_reference}:${refund.status}:${refund.merchant_reference}`,
  );
}

/** Constant-time check of a refund callback's hex signature (either case); false for anything malformed. */
export function verifyRefundSignature(signingKey: string, refund: RefundSignatureFields, signature: string): boolean {
  return matches(refundSignature(signingKey, refund), signature);
}

/**
 * A payout callback's `hmac-signature`: lowercase hex HMAC-SHA256 over
 * "payout_reference:status:provider_code:msisdn" (a payout has no collection: its reference, its state, and where the
 * money went), keyed as collectionSignature. Published to merchants, so it must never change.
 */
export function payoutSignature(signingKey: string, payout: PayoutSignatureFields): string {
  return hmacHex(signingKey, `${payout.payout_reference}:${payout.status}:${payout.provider_code}:${payout.msisdn}`);
}

/** Constant-time check of a payout callback's hex signature (either case); false for anything malformed. */
export function verifyPayoutSignature(signingKey: string, payout: PayoutSignatureFields, signature: string): boolean {
  return matches(payoutSignature(signingKey, payout), signature);
}

/** Whether a callback event is about a refund, whose hmac-signature covers the refund's fields. */
export const isRefundEvent = (event: string) => event.startsWith('refund.');

/** Whether a callback event is about a payout, whose hmac-signature covers the payout's fields. */
export const isPayoutEvent = (event: string) => event.startsWith('payout.');

/**
 * The `hmac-signature` of a callback `{event, payload}`: refund.* sign the refund's fields, payout.* the payout's,
 * every other the record's.
 */
export function callbackSignature(signingKey: string, event: string, payload: object): string {
  if (isRefundEvent(event)) return refundSignature(signingKey, payload as RefundSignatureFields);
  if (isPayoutEvent(event)) return payoutSignature(signingKey, payload as PayoutSignatureFields);
  return collectionSignature(signingKey, payload as CollectionSignatureFields);
}

/** Constant-time check of a callback's `hmac-signature` (either case), by its event; false for anything malformed. */
export function verifyCallbackSignature(
  signingKey: string,
  event: string,
  payload: object,
  signature: string,
): boolean {
  return matches(callbackSignature(signingKey, event, payload), signature);
}
