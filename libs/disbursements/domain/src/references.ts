import { createHash } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * The reference a provider knows a money-out by: derived from its stream (the merchant and the merchant's reference),
 * so every retry, from any process, is the same request at the provider; short and plain (`RF`/`PO` + 24 of
 * Crockford's base 32), whatever the merchant's reference holds.
 */
export function providerReferenceOf(streamId: string, kind: 'REFUND' | 'PAYOUT'): string {
  const digest = createHash('sha256').update(streamId, 'utf8').digest();
  let out = kind === 'REFUND' ? 'RF' : 'PO';
  for (let i = 0; i < 24; i++) out += ALPHABET[digest[i] % 32];
  return out;
}
