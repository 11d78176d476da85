import { createHash, randomInt } from 'node:crypto';
import type { CollectionRequest } from '@paygate/contracts';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
// Crockford base32: no I, L, O, U, so references survive being read out over the phone.
const BASE32 = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

function randomString(alphabet: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

/** `PG` + 24 base32 characters: 120 random bits, so references cannot be guessed. */
export function newInternalReference(): string {
  return `PG${randomString(BASE32, 24)}`;
}

/** What `merchant_reference: "auto"` becomes: `MCTREF` + 14 uppercase alphanumerics. */
export function newMerchantReference(): string {
  return `MCTREF${randomString(ALPHANUMERIC, 14)}`;
}

export const AUTO_MERCHANT_REFERENCE = 'auto';

/** Hash of the request with keys in a fixed order: equal bodies hash equal, whatever their key order. */
export function requestHash(request: CollectionRequest): string {
  const canonical = Object.keys(request)
    .sort()
    .map((key) => [key, request[key as keyof CollectionRequest]] as const)
    .filter(([, value]) => value !== undefined);
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex');
}
