import type { webhooks } from './api-types';
import { verifyCallbackSignature } from './hmac-signature';
import {
  checkStandardWebhook,
  type StandardWebhookFailure,
  type VerifyStandardWebhookOptions,
} from './standard-webhooks';

/** The callback events Paygate sends: the document's `webhooks` (docs/webhooks.md). */
export type PaygateEventType = keyof webhooks;

type CallbackBody<Operation> = Operation extends { requestBody: { content: { 'application/json': infer Body } } }
  ? Body
  : never;

/** A callback's body (`{ event, payload }`), for each event as the document describes it. */
export type PaygateCallbackBody = {
  [Event in PaygateEventType]: CallbackBody<webhooks[Event]['post']>;
}[PaygateEventType];

/** A verified callback; `type` tells which payload it carries (the collection's, the service payment's, the refund's or the payout's). */
export type PaygateEvent = PaygateCallbackBody extends infer Body
  ? Body extends { event: infer Type; payload: infer Payload }
    ? {
        /** `webhook-id`: the same on every attempt of one callback, so deduplicate by it. */
        id: string;
        type: Type;
        /** `webhook-timestamp` of this attempt. */
        timestamp: Date;
        payload: Payload;
      }
    : never
  : never;

export type WebhookVerificationFailure = StandardWebhookFailure | 'bad_hmac_signature' | 'malformed_body';

/** The callback did not verify: answer it 400 and do not act on it. `reason` says which check refused it. */
export class WebhookVerificationError extends Error {
  constructor(
    readonly reason: WebhookVerificationFailure,
    message: string,
  ) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/** Request headers as Node's http module, Express or fetch hand them over. */
export type IncomingHeaders = Record<string, string | string[] | undefined> | { get(name: string): string | null };

const MESSAGES: Record<WebhookVerificationFailure, string> = {
  missing_headers: 'webhook-id, webhook-timestamp and webhook-signature are required',
  bad_timestamp: 'webhook-timestamp is not unix seconds',
  timestamp_outside_tolerance: 'webhook-timestamp is too far from now (a replay, or a clock that is off)',
  no_matching_signature:
    'no webhook-signature matches the body and your signing key (verify the raw body, before any JSON parsing)',
  bad_hmac_signature:
    "hmac-signature does not match the payload's id, internal_reference, transaction_status and merchant_reference (refund.*: refund_reference, internal_reference, status and merchant_reference; payout.*: payout_reference, status, provider_code and msisdn)",
  malformed_body: 'the body is not a Paygate callback',
};

/**
 * Verifies a callback as it arrived and returns it parsed, in the manner of Stripe's
 * `constructEvent`: the Standard Webhooks signature over the raw body (within the timestamp
 * tolerance, 5 minutes by default), then, where the callback carries one, its `hmac-signature`.
 * Throws WebhookVerificationError otherwise. Pass the raw body: parsing and re-serialising JSON
 * changes the bytes the signature covers.
 */
export function constructEvent(
  rawBody: string | Uint8Array,
  headers: IncomingHeaders,
  signingKey: string,
  options: VerifyStandardWebhookOptions = {},
): PaygateEvent {
  const body = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8');
  const flat = flatHeaders(headers, ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'hmac-signature']);
  const failure = checkStandardWebhook(signingKey, flat, body, options);
  if (failure) throw new WebhookVerificationError(failure, MESSAGES[failure]);
  const parsed = parseCallback(body);
  if (!parsed) throw new WebhookVerificationError('malformed_body', MESSAGES.malformed_body);
  const hmac = flat['hmac-signature'];
  if (hmac !== undefined && !verifyCallbackSignature(signingKey, parsed.event, parsed.payload, hmac)) {
    throw new WebhookVerificationError('bad_hmac_signature', MESSAGES.bad_hmac_signature);
  }
  return {
    id: flat['webhook-id']!,
    type: parsed.event,
    timestamp: new Date(Number(flat['webhook-timestamp']) * 1000),
    payload: parsed.payload,
  } as PaygateEvent;
}

function flatHeaders(headers: IncomingHeaders, names: string[]): Record<string, string | undefined> {
  const read =
    typeof headers.get === 'function'
      ? (name: string) => (headers as { get(name: string): string | null }).get(name) ?? undefined
      : (name: string) => {
          const entries = headers as Record<string, string | string[] | undefined>;
          const key = Object.keys(entries).find((candidate) => candidate.toLowerCase() === name);
          const value = key === undefined ? undefined : entries[key];
          return Array.isArray(value) ? value.join(' ') : value;
        };
  return Object.fromEntries(names.map((name) => [name, read(name)]));
}

/** The body as a callback, when it has the shape of one; its fields are Paygate's, signed. */
function parseCallback(body: string): PaygateCallbackBody | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null) return null;
  const { event, payload } = parsed as { event?: unknown; payload?: unknown };
  if (typeof event !== 'string' || typeof payload !== 'object' || payload === null) return null;
  return parsed as PaygateCallbackBody;
}
