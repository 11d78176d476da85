/**
 * Why a service refused a command, as a stable code the merchant API documents. Services and
 * domains speak only in these codes; the gateway alone turns them into HTTP statuses (one
 * table in libs/gateway/http), so nothing below it knows about HTTP.
 */
export const REJECTION_CODES = [
  /** The request breaks a rule the catalogue or the domain checks; `details.errors` names fields. */
  'invalid_request',
  /** merchant_reference (or a ledger transfer or hold id) was used before for a different request. */
  'duplicate_reference',
  /** Unknown reference, or one that belongs to another merchant. */
  'not_found',
  /** The transaction is final, or was created with require_confirmation=false. */
  'not_awaiting_confirmation',
  /** A stream that was to be new exists already (two identical requests at once). */
  'already_exists',
  /** A wallet's available balance (balance − holds) cannot cover the amount; nothing was changed. */
  'insufficient_funds',
  /** The payment provider could not be reached; the same command may succeed later. */
  'provider_unavailable',
  /** The service, or the store or broker it needs, did not answer; the same command may succeed later. */
  'service_unavailable',
  /** No handler for this command (a newer sender than the service). */
  'unknown_command',
  /** The service failed; details stay in its log. */
  'internal',
] as const;

export type RejectionCode = (typeof REJECTION_CODES)[number];

/** A refusal that crosses process boundaries intact (code, message, details). */
export interface Rejection {
  code: RejectionCode;
  message: string;
  details?: Record<string, unknown>;
}

export class CommandRejectedError extends Error implements Rejection {
  override readonly name = 'CommandRejectedError';
  constructor(
    readonly code: RejectionCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }

  static from(rejection: Rejection): CommandRejectedError {
    return new CommandRejectedError(rejection.code, rejection.message, rejection.details);
  }

  toRejection(): Rejection {
    return { code: this.code, message: this.message, details: this.details };
  }
}

/**
 * A dependency (the store, the broker, the service that owns a command) did not answer in
 * time. Nothing the request asked for can be assumed done or undone, so callers answer
 * "try again later" (the gateway: 503 with Retry-After); every command is safe to repeat.
 * `message` names the dependency, never its address or credentials.
 */
export class UnavailableError extends Error {
  override readonly name: string = 'UnavailableError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
