import { createHmac, timingSafeEqual } from 'node:crypto';

/** The record fields Paygate's `hmac-signature` (and a card redirect's `hmac_signature`) covers. */
export interface CollectionSignatureFields {
  id: number | string;
  internal_reference: string;
  transaction_status: string;
  merchant_reference: string;
}

const HEX_SHA256 = /^[0-9a-f]{64}$/i;

/**
 * Lowercase hex HMAC-SHA256 over "id:internal_reference:transaction_status:merchant_reference",
 * keyed with the UTF-8 bytes of the merchant's signing key. This string format is published to
 * merchants, so it must never change.
 */
export function collectionSignature(signingKey: string, record: CollectionSignatureFields): string {
  const message = `${record.id}:${record.internal_reference}:${record.transaction_status}:${record.merchant_reference}`;
  return createHmac('sha256', Buffer.from(signingKey, 'utf8')).update(message, 'utf8').digest('hex');
}

/** Constant-time check of a hex signature (either case); false for anything malformed. */
export function verifyCollectionSignature(
  signingKey: string,
  record: CollectionSignatureFields,
  signature: string,
): boolean {
  // Buffer.from(…, 'hex') silently drops bad characters, so validate the shape first.
  if (typeof signature !== 'string' || !HEX_SHA256.test(signature)) return false;
  const expected = Buffer.from(collectionSignature(signingKey, record), 'hex');
  return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
}
