import { createHash } from 'node:crypto';

/** A money-out's kind: a refund to a collection's payer, or a payout to a mobile money number. */
export type MoneyOutKindName = 'REFUND' | 'PAYOUT';

export const REFUND_STREAM_PREFIX = 'refund-';
export const PAYOUT_STREAM_PREFIX = 'payout-';

/** A money-out's stream: the merchant's reference is unique per merchant and kind. */
export const moneyOutStream = (kind: MoneyOutKindName, merchantId: string, reference: string) =>
  `${kind === 'REFUND' ? REFUND_STREAM_PREFIX : PAYOUT_STREAM_PREFIX}${merchantId}:${reference}`;

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * The reference a provider knows a money-out by: derived from its stream (the merchant and the merchant's reference),
 * so every retry, from any process, is the same request at the provider; short and plain (`RF`/`PO` + 24 of
 * Crockford's base 32), whatever the merchant's reference holds.
 */
export function providerReferenceOf(streamId: string, kind: MoneyOutKindName): string {
  const digest = createHash('sha256').update(streamId, 'utf8').digest();
  let out = kind === 'REFUND' ? 'RF' : 'PO';
  for (let i = 0; i < 24; i++) out += ALPHABET[digest[i] % 32];
  return out;
}
