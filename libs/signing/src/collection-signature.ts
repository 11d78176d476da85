import { collectionSignature, type CollectionSignatureFields } from 'paygate-node/signatures';

/** Fields appended to the merchant's redirect URL after a collection finishes. */
export interface RedirectFields extends CollectionSignatureFields {
  status_message: string;
}

const REDIRECT_PARAMS = [
  'id',
  'merchant_reference',
  'internal_reference',
  'transaction_status',
  'status_message',
  'hmac_signature',
] as const;

/**
 * The merchant's redirect URL with the collection outcome and its signature appended.
 * The merchant's own query parameters are kept, except any that clash with ours: leaving a
 * merchant-supplied "id" or "hmac_signature" in place would let it shadow the signed value.
 * Note that rewriting the query re-serialises it with form encoding (spaces become "+").
 */
export function signedRedirectUrl(redirectUrl: string, record: RedirectFields, signingKey: string): string {
  let url: URL;
  try {
    url = new URL(redirectUrl);
  } catch {
    // Node's own message is just "Invalid URL"; name what was wrong for the caller's logs.
    throw new TypeError(`Invalid redirect URL: ${JSON.stringify(redirectUrl)}`);
  }
  const values: Record<(typeof REDIRECT_PARAMS)[number], string> = {
    id: String(record.id),
    merchant_reference: record.merchant_reference,
    internal_reference: record.internal_reference,
    transaction_status: record.transaction_status,
    status_message: record.status_message,
    hmac_signature: collectionSignature(signingKey, record),
  };
  // delete + append (rather than set) removes duplicates and keeps our parameters in a fixed order
  for (const name of REDIRECT_PARAMS) {
    url.searchParams.delete(name);
  }
  for (const name of REDIRECT_PARAMS) {
    url.searchParams.append(name, values[name]);
  }
  return url.toString();
}
