import type { PrnRejectionReason } from '@paygate/contracts';

/**
 * Domain events of the payments context, its own; other contexts see a payment only through its
 * integration events (libs/contracts). The ServicePayment: one per collect-for-payment
 * collection, stream `service-payment-<internal_reference>`; the wallet ledger: one stream per
 * merchant wallet and currency, `wallet-<merchantId>-<currency>`. Every event carries
 * `metadata.schemaVersion`: ServicePayment events 1, wallet events 2 (see
 * WALLET_EVENT_SCHEMA_VERSION); amounts are integer minor units; no secret appears.
 */
/** The ServicePayment's events. */
export const PAYMENTS_EVENT_SCHEMA_VERSION = 1;

/**
 * The wallet ledger's events. Version 2 (this one): WalletHoldPlaced says what the hold is for
 * (`purpose`, and the collection's `internalReference`), so analysts can join holds to
 * collections without parsing hold ids. Version 1 streams are read through an upcaster that
 * derives both from the hold id (libs/payments/domain, readWalletEvent); every other wallet
 * event has the same shape in both versions.
 */
export const WALLET_EVENT_SCHEMA_VERSION = 2;

// ---- ServicePayment ----

export const SERVICE_PAYMENT_EVENT_TYPES = {
  opened: 'ServicePaymentOpened',
  prnConfirmed: 'PrnEligibilityConfirmed',
  prnRejected: 'PrnEligibilityRejected',
  prnValidationDeferred: 'PrnValidationDeferred',
  collectionSettled: 'CollectionSettlementRecorded',
  paymentRequested: 'ServicePaymentRequested',
  attemptFailed: 'PaymentAttemptFailed',
  completed: 'ServicePaymentCompleted',
  failed: 'ServicePaymentFailed',
} as const;

/** The collection's record (collections.CollectionOpened) plus what is to be paid. */
export interface ServicePaymentOpenedV1 {
  id: number;
  merchantId: string;
  merchantReference: string;
  internalReference: string;
  currency: string;
  requestAmount: number;
  transactionAmount: number;
  fee: number;
  totalCredit: number;
  chargeCustomer: boolean;
  customerName: string;
  /** 13 digits. */
  prn: string;
  /** What callbacks call the service paid, e.g. "URA". */
  serviceName: string;
  openedAt: string;
}

export interface PrnEligibilityConfirmedV1 {
  internalReference: string;
  prn: string;
  /** The wallet hold of the fee the merchant bears (charge_customer=false); absent otherwise. */
  feeHoldId?: string;
  validatedAt: string;
}

export interface PrnEligibilityRejectedV1 {
  internalReference: string;
  prn: string;
  reasonCode: PrnRejectionReason;
  /** Short text, e.g. "already paid"; collections cancels with "PRN not eligible: <reason>". */
  reason: string;
  statusMessage: string;
  rejectedAt: string;
}

/** The biller could not be reached to validate the PRN: asked again at `nextAttemptAt`. */
export interface PrnValidationDeferredV1 {
  internalReference: string;
  /** 1 for the first lookup that failed. */
  attempt: number;
  reason: string;
  nextAttemptAt: string;
  deferredAt: string;
}

export type SettledCollectionStatus = 'COMPLETED' | 'FAILED' | 'CANCELLED';

export interface CollectionSettlementRecordedV1 {
  internalReference: string;
  collectionStatus: SettledCollectionStatus;
  collectionStatusMessage: string;
  recordedAt: string;
}

export interface ServicePaymentRequestedV1 {
  internalReference: string;
  prn: string;
  amount: number;
  currency: string;
  /** Derived from the internal reference: every retry is the same payment at the biller. */
  idempotencyKey: string;
  requestedAt: string;
}

export interface PaymentAttemptFailedV1 {
  internalReference: string;
  /** 1 for the first attempt. */
  attempt: number;
  reason: string;
  nextAttemptAt: string;
  failedAt: string;
}

export interface ServicePaymentCompletedV1 {
  internalReference: string;
  billerPaymentId: string;
  receiptNumber?: string;
  statusMessage: string;
  completedAt: string;
}

export type ServicePaymentFailureReason = 'BILLER_REFUSED' | 'RETRIES_EXHAUSTED' | 'COLLECTION_NOT_COMPLETED';

export interface ServicePaymentFailedV1 {
  internalReference: string;
  reason: ServicePaymentFailureReason;
  statusMessage: string;
  /** Failed attempts at the biller before this. */
  attempts: number;
  failedAt: string;
}

export type ServicePaymentEvent =
  | { type: typeof SERVICE_PAYMENT_EVENT_TYPES.opened; data: ServicePaymentOpenedV1 }
  | { type: typeof SERVICE_PAYMENT_EVENT_TYPES.prnConfirmed; data: PrnEligibilityConfirmedV1 }
  | { type: typeof SERVICE_PAYMENT_EVENT_TYPES.prnRejected; data: PrnEligibilityRejectedV1 }
  | { type: typeof SERVICE_PAYMENT_EVENT_TYPES.prnValidationDeferred; data: PrnValidationDeferredV1 }
  | { type: typeof SERVICE_PAYMENT_EVENT_TYPES.collectionSettled; data: CollectionSettlementRecordedV1 }
  | { type: typeof SERVICE_PAYMENT_EVENT_TYPES.paymentRequested; data: ServicePaymentRequestedV1 }
  | { type: typeof SERVICE_PAYMENT_EVENT_TYPES.attemptFailed; data: PaymentAttemptFailedV1 }
  | { type: typeof SERVICE_PAYMENT_EVENT_TYPES.completed; data: ServicePaymentCompletedV1 }
  | { type: typeof SERVICE_PAYMENT_EVENT_TYPES.failed; data: ServicePaymentFailedV1 };

// ---- wallet ledger ----

/**
 * Double-entry accounts, `<kind>:<currency>` or, for wallets, `merchant_wallet:<merchantId>:<currency>`.
 * A transfer debits one and credits another by the same amount, so the balances of all
 * accounts (credits − debits) always sum to zero.
 */
export type LedgerAccountKind = 'merchant_wallet' | 'customer_funds' | 'biller_settlement' | 'fee_revenue' | 'top_up';

export const LEDGER_ACCOUNTS = {
  merchantWallet: (merchantId: string, currency: string) => `merchant_wallet:${merchantId}:${currency}`,
  /** Money that came in from customers (collections). */
  customerFunds: (currency: string) => `customer_funds:${currency}`,
  /** Money paid out to billers (URA). */
  billerSettlement: (currency: string) => `biller_settlement:${currency}`,
  feeRevenue: (currency: string) => `fee_revenue:${currency}`,
  /** Sandbox and admin top-ups. */
  topUp: (currency: string) => `top_up:${currency}`,
};

export interface Transfer {
  /** Unique in the ledger; a second transfer with the same id is the same transfer. */
  transferId: string;
  debitAccount: string;
  creditAccount: string;
  /** Positive, integer minor units. */
  amount: number;
  currency: string;
}

export const WALLET_EVENT_TYPES = {
  collectionCredited: 'WalletCollectionCredited',
  toppedUp: 'WalletToppedUp',
  holdPlaced: 'WalletHoldPlaced',
  holdReleased: 'WalletHoldReleased',
  holdCaptured: 'WalletHoldCaptured',
} as const;

export interface WalletCollectionCreditedV1 {
  merchantId: string;
  currency: string;
  internalReference: string;
  /** customer_funds → wallet (total credit) and, when there is a fee, customer_funds → fee_revenue. */
  transfers: Transfer[];
  creditedAt: string;
}

export interface WalletToppedUpV1 {
  merchantId: string;
  currency: string;
  /** top_up → wallet. */
  transfer: Transfer;
  toppedUpAt: string;
}

/** Reserves part of the wallet's balance: available = balance − held. Moves no money. Version 1: written until WalletHoldPlacedV2. */
export interface WalletHoldPlacedV1 {
  merchantId: string;
  currency: string;
  holdId: string;
  amount: number;
  placedAt: string;
}

/** FEE: the fee a merchant bears, held at PRN validation; PRN_PAYMENT: the PRN's amount, held until the biller is paid. */
export const WALLET_HOLD_PURPOSES = ['FEE', 'PRN_PAYMENT', 'OTHER'] as const;
export type WalletHoldPurpose = (typeof WALLET_HOLD_PURPOSES)[number];

export interface WalletHoldPlacedV2 extends WalletHoldPlacedV1 {
  purpose: WalletHoldPurpose;
  /** The collection the hold is for; absent for OTHER. */
  internalReference?: string;
}

export interface WalletHoldReleasedV1 {
  merchantId: string;
  currency: string;
  holdId: string;
  amount: number;
  releasedAt: string;
}

export interface WalletHoldCapturedV1 {
  merchantId: string;
  currency: string;
  holdId: string;
  /** wallet → biller_settlement, the held amount. */
  transfer: Transfer;
  capturedAt: string;
}

export type WalletEvent =
  | { type: typeof WALLET_EVENT_TYPES.collectionCredited; data: WalletCollectionCreditedV1 }
  | { type: typeof WALLET_EVENT_TYPES.toppedUp; data: WalletToppedUpV1 }
  | { type: typeof WALLET_EVENT_TYPES.holdPlaced; data: WalletHoldPlacedV2 }
  | { type: typeof WALLET_EVENT_TYPES.holdReleased; data: WalletHoldReleasedV1 }
  | { type: typeof WALLET_EVENT_TYPES.holdCaptured; data: WalletHoldCapturedV1 };
