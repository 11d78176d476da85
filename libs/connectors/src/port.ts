import type {
  AccountHolder,
  BillPaymentRequest,
  CollectRequest,
  MoneyOutOutcome,
  ProviderOutcome,
} from '@paygate/contracts';

export type { AccountHolder, BillPaymentRequest, MoneyOutOutcome, ProviderOutcome };

/**
 * The port every provider connector implements, keyed by provider_code in the registry. A
 * connector offers the capabilities its provider has; each capability is a group of operations.
 */
export interface Connector {
  /** The protocol it speaks (e.g. "momo"); provider codes speaking the same one share a connector. */
  readonly protocol: string;
  readonly collect?: CollectOperations;
  readonly billPayment?: BillPaymentOperations;
  readonly payout?: PayoutOperations;
  readonly refund?: RefundOperations;
}

export type Capability = 'collect' | 'billPayment' | 'payout' | 'refund';

/** A connector known to offer `C`. */
export type ConnectorWith<C extends Capability> = Connector & Required<Pick<Connector, C>>;

// ---- collect: take a payment from a payer (mobile money prompt, card checkout) ----

/** What a collection asks its provider for, with where the provider answers (contracts' CollectRequest). */
export interface CollectInitiateRequest extends CollectRequest {
  /** Where the provider sends its notification. */
  notifyUrl: string;
  /** Where a hosted checkout sends the payer's browser when done. */
  returnUrl: string;
}

export interface CollectInitiation {
  /** What `status` takes. */
  providerReference: string;
  /** A hosted page the payer completes the payment on (card checkout). */
  paymentUrl?: string;
}

export interface CollectOperations {
  initiate(request: CollectInitiateRequest): Promise<CollectInitiation>;
  /** The authoritative outcome: a notification only says when to ask. */
  status(providerReference: string): Promise<ProviderOutcome>;
  /**
   * The provider reference a notification body names, or null when the body is not a
   * notification of this protocol. Only a hint: it proves nothing, so callers ask `status`.
   */
  verifyNotification(body: unknown): string | null;
  /**
   * For protocols where our reference fixes the provider reference before any call (MoMo's
   * X-Reference-Id), that reference: a status query then needs no recorded initiate answer.
   */
  providerReferenceFor?(reference: string): string;
}

// ---- bill payment: pay a bill (a URA payment registration number) from a merchant's wallet ----

/** A bill as its biller describes it. Amounts are integer minor units of `currency`. */
export interface Bill {
  /** The payment registration number. */
  prn: string;
  amount: number;
  currency: string;
  /**
   * AVAILABLE: payable; SUBMITTED: a payment is being processed; PAID; EXPIRED. Only an
   * AVAILABLE bill accepts a new payment.
   */
  status: 'AVAILABLE' | 'SUBMITTED' | 'PAID' | 'EXPIRED';
  /** ISO 8601 time after which the biller no longer accepts payment. */
  expiresAt: string;
  /** Who owes it, as the biller names them. */
  payerName: string;
  /** What it pays for (e.g. "URA - Domestic Tax"). */
  serviceName: string;
}

/** The biller either knows the PRN or does not; anything else it answers is an error. */
export type BillValidation = { found: true; bill: Bill } | { found: false };

/** A payment the biller has recorded: PENDING while it processes it, then SUCCESSFUL. */
export type BillPayment = {
  /** The biller's id for the payment. */
  providerTransactionId: string;
  prn: string;
  amount: number;
  currency: string;
  reference: string;
} & ({ status: 'PENDING' } | { status: 'SUCCESSFUL'; receiptNumber: string; paidAt: string });

/**
 * Refusals (already paid, expired, amount or currency mismatch, unknown PRN, the key reused for
 * another payment) are ProviderRequestErrors carrying the biller's code; a payment is never
 * refused after it was recorded.
 */
export interface BillPaymentOperations {
  validate(prn: string): Promise<BillValidation>;
  pay(request: BillPaymentRequest): Promise<BillPayment>;
  /** The payment made with this key, or NOT_FOUND when the biller has none (it was never made). */
  status(idempotencyKey: string): Promise<BillPayment | { status: 'NOT_FOUND' }>;
}

// ---- money out: pay out to a mobile money number, refund a collection ----

/** A payout asked of a provider: wallet money sent to a mobile money number. */
export interface PayoutRequest {
  /**
   * Our reference for the payout: unique, the same on every retry (the connector derives the
   * provider's reference from it, as momoReferenceId does).
   */
  reference: string;
  /** In major units, as a decimal string, as CollectRequest. */
  amount: string;
  currency: string;
  msisdn: string;
  payerMessage: string;
  payeeNote: string;
  /** Where the provider sends its notification. */
  notifyUrl: string;
}

export interface PayoutOperations {
  /** The name check: whether the number's account can receive, and whose it is. */
  accountHolder(msisdn: string): Promise<AccountHolder>;
  /** Idempotent per reference (MoMo answers 409 to a reused X-Reference-Id: counts as accepted). */
  send(request: PayoutRequest): Promise<void>;
  /** The authoritative outcome, by OUR reference. */
  status(reference: string): Promise<MoneyOutOutcome>;
  /** Our reference a notification body names, or null (a hint only; callers ask status). */
  verifyNotification(body: unknown): string | null;
}

/** A refund of (part of) a collection asked of the provider that collected it. */
export interface RefundRequest {
  /** Our refund reference: unique, the same on every retry. */
  reference: string;
  /** Our reference of the collection refunded; the connector derives the provider's (referenceIdToRefund, the card charge). */
  collectionReference: string;
  /** In major units, as a decimal string. */
  amount: string;
  currency: string;
  payerMessage: string;
  payeeNote: string;
  notifyUrl: string;
}

export interface RefundOperations {
  /** False when the provider refunds only whole collections: a partial refund is then paid out to the payer's number. */
  readonly partial: boolean;
  /** Idempotent per reference. */
  send(request: RefundRequest): Promise<void>;
  /** The authoritative outcome, by OUR reference. */
  status(reference: string): Promise<MoneyOutOutcome>;
  /** Our reference a notification body names, or null (a hint only; callers ask status). */
  verifyNotification(body: unknown): string | null;
}

// ---- errors ----

/** Network error, timeout or 5xx: the same request may succeed later. Names provider and status only. */
export class ProviderUnavailableError extends Error {
  override readonly name = 'ProviderUnavailableError';
  constructor(
    readonly provider: string,
    readonly status?: number,
    options?: ErrorOptions,
  ) {
    super(`${provider} unavailable: ${status === undefined ? 'no response' : `HTTP ${status}`}`, options);
  }
}

/**
 * Any other answer than the expected one (4xx, a success with an unreadable body): repeating
 * the request will not help. The body itself is never quoted: it may echo what was sent.
 */
export class ProviderRequestError extends Error {
  override readonly name = 'ProviderRequestError';
  constructor(
    readonly provider: string,
    readonly status: number,
    /** The provider's error code, when it gave a plain one. */
    readonly code?: string,
  ) {
    super(
      status >= 200 && status < 300
        ? `${provider} answered HTTP ${status} with a body that is not the expected answer`
        : `${provider} answered HTTP ${status}${code ? ` ${code}` : ''}`,
    );
  }
}
