import { createHmac, timingSafeEqual } from 'node:crypto';

// Standard Webhooks (https://www.standardwebhooks.com) signing, version v1 (HMAC-SHA256).
// The key is the UTF-8 bytes of the merchant's signing key, not a base64 "whsec_" secret.

// A type alias rather than an interface so it is assignable to Record<string, string> (fetch
// headers, verifyStandardWebhook) without a cast.
export type StandardWebhookHeaders = {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
};

export interface VerifyStandardWebhookOptions {
  /** Maximum allowed distance between the webhook timestamp and now, in seconds. Default 300. */
  toleranceSeconds?: number;
  /** Current time in Unix seconds; defaults to the system clock. */
  nowSeconds?: number;
}

const DEFAULT_TOLERANCE_SECONDS = 300;

/** "v1,<base64 HMAC-SHA256 of `${webhookId}.${timestampSeconds}.${body}`>". */
export function standardWebhookSignature(
  signingKey: string,
  webhookId: string,
  timestampSeconds: number,
  body: string,
): string {
  // A fractional or exponent-formatted timestamp would sign a string no receiver reconstructs.
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new RangeError(`timestampSeconds must be a non-negative integer, got ${timestampSeconds}`);
  }
  return `v1,${hmacBase64(signingKey, webhookId, String(timestampSeconds), body)}`;
}

export function standardWebhookHeaders(
  signingKey: string,
  webhookId: string,
  timestampSeconds: number,
  body: string,
): StandardWebhookHeaders {
  return {
    'webhook-id': webhookId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': standardWebhookSignature(signingKey, webhookId, timestampSeconds, body),
  };
}

/** Why a callback's Standard Webhooks headers did not verify. */
export type StandardWebhookFailure =
  'missing_headers' | 'bad_timestamp' | 'timestamp_outside_tolerance' | 'no_matching_signature';

/**
 * Null when the headers carry a valid v1 signature for `body` and a timestamp within
 * tolerance, else why not. The signature header may list several space-separated signatures
 * (key rotation); one match is enough. Header names are matched case-insensitively.
 */
export function checkStandardWebhook(
  signingKey: string,
  headers: Record<string, string | undefined>,
  body: string,
  { toleranceSeconds = DEFAULT_TOLERANCE_SECONDS, nowSeconds }: VerifyStandardWebhookOptions = {},
): StandardWebhookFailure | null {
  const webhookId = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!webhookId || !timestamp || !signatures) return 'missing_headers';
  // Strict digits: parseInt would accept "123abc" and then sign a different string than was sent.
  if (!/^\d{1,15}$/.test(timestamp)) return 'bad_timestamp';
  const now = nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(timestamp)) > toleranceSeconds) return 'timestamp_outside_tolerance';
  const expected = Buffer.from(hmacBase64(signingKey, webhookId, timestamp, body), 'utf8');
  let matched = false;
  for (const entry of signatures.split(' ')) {
    const comma = entry.indexOf(',');
    if (comma < 0 || entry.slice(0, comma) !== 'v1') continue;
    // Compare the base64 text, not decoded bytes: Node's base64 decoder ignores junk characters.
    const candidate = Buffer.from(entry.slice(comma + 1), 'utf8');
    if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) matched = true;
  }
  return matched ? null : 'no_matching_signature';
}

/** True when the headers carry a valid v1 signature for `body` within tolerance (checkStandardWebhook says why not). */
export function verifyStandardWebhook(
  signingKey: string,
  headers: Record<string, string | undefined>,
  body: string,
  options: VerifyStandardWebhookOptions = {},
): boolean {
  return checkStandardWebhook(signingKey, headers, body, options) === null;
}

function hmacBase64(signingKey: string, webhookId: string, timestamp: string, body: string): string {
  return createHmac('sha256', Buffer.from(signingKey, 'utf8'))
    .update(`${webhookId}.${timestamp}.${body}`, 'utf8')
    .digest('base64');
}

function header(headers: Record<string, string | undefined>, name: string): string | undefined {
  if (headers[name] !== undefined) {
    return headers[name];
  }
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) {
      return value;
    }
  }
  return undefined;
}
