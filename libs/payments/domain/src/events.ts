import { closedObject, eventData, enumOf, PRN_REJECTION_REASONS, SCHEMA, type EventsOf } from '@paygate/contracts';
import { Type, type Static } from '@sinclair/typebox';

/**
 * Domain events of the payments context, its own; other contexts see a payment only through its
 * integration events (libs/contracts). The ServicePayment: one per collect-for-payment
 * collection, stream `service-payment-<internal_reference>`; the wallet ledger: one stream per
 * merchant wallet and currency, `wallet-<merchantId>-<currency>`. Every event carries
 * `metadata.schemaVersion`: ServicePayment events 1, wallet events 2 (see
 * WALLET_EVENT_SCHEMA_VERSION); amounts are integer minor units; no secret appears. Each event's
 * data is declared once (docs/adr/0002-event-schemas.md): its JSON Schema, and its type by `Static<>`.
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

const { text, instant, minorUnits, positiveMinorUnits, currency, id, boolean, prn } = SCHEMA;
const attempt = Type.Integer({ minimum: 1 });

/** The collection's record (collections.CollectionOpened) plus what is to be paid. */
export const ServicePaymentOpenedV1 = eventData({
  id,
  merchantId: text,
  merchantReference: text,
  internalReference: text,
  currency,
  requestAmount: minorUnits,
  transactionAmount: minorUnits,
  fee: minorUnits,
  totalCredit: minorUnits,
  chargeCustomer: boolean,
  customerName: text,
  prn,
  /** What callbacks call the service paid, e.g. "URA". */
  serviceName: text,
  /** Its collection's: absent from payments opened before it was carried (test data). */
  livemode: Type.Optional(boolean),
  openedAt: instant,
});
export type ServicePaymentOpenedV1 = Static<typeof ServicePaymentOpenedV1>;

export const PrnEligibilityConfirmedV1 = eventData({
  internalReference: text,
  prn,
  /** The wallet hold of the fee the merchant bears (charge_customer=false); absent otherwise. */
  feeHoldId: Type.Optional(text),
  validatedAt: instant,
});
export type PrnEligibilityConfirmedV1 = Static<typeof PrnEligibilityConfirmedV1>;

export const PrnEligibilityRejectedV1 = eventData({
  internalReference: text,
  prn,
  reasonCode: enumOf(PRN_REJECTION_REASONS),
  /** Short text, e.g. "already paid"; collections cancels with "PRN not eligible: <reason>". */
  reason: text,
  statusMessage: text,
  rejectedAt: instant,
});
export type PrnEligibilityRejectedV1 = Static<typeof PrnEligibilityRejectedV1>;

/** The biller could not be reached to validate the PRN: asked again at `nextAttemptAt`. */
export const PrnValidationDeferredV1 = eventData({
  internalReference: text,
  /** 1 for the first lookup that failed. */
  attempt,
  reason: text,
  nextAttemptAt: instant,
  deferredAt: instant,
});
export type PrnValidationDeferredV1 = Static<typeof PrnValidationDeferredV1>;

export const SETTLED_COLLECTION_STATUSES = ['COMPLETED', 'FAILED', 'CANCELLED'] as const;
export type SettledCollectionStatus = (typeof SETTLED_COLLECTION_STATUSES)[number];

export const CollectionSettlementRecordedV1 = eventData({
  internalReference: text,
  collectionStatus: enumOf(SETTLED_COLLECTION_STATUSES),
  collectionStatusMessage: text,
  recordedAt: instant,
});
export type CollectionSettlementRecordedV1 = Static<typeof CollectionSettlementRecordedV1>;

export const ServicePaymentRequestedV1 = eventData({
  internalReference: text,
  prn,
  amount: minorUnits,
  currency,
  /** Derived from the internal reference: every retry is the same payment at the biller. */
  idempotencyKey: text,
  requestedAt: instant,
});
export type ServicePaymentRequestedV1 = Static<typeof ServicePaymentRequestedV1>;

export const PaymentAttemptFailedV1 = eventData({
  internalReference: text,
  /** 1 for the first attempt. */
  attempt,
  reason: text,
  nextAttemptAt: instant,
  failedAt: instant,
});
export type PaymentAttemptFailedV1 = Static<typeof PaymentAttemptFailedV1>;

export const ServicePaymentCompletedV1 = eventData({
  internalReference: text,
  billerPaymentId: text,
  receiptNumber: Type.Optional(text),
  statusMessage: text,
  completedAt: instant,
});
export type ServicePaymentCompletedV1 = Static<typeof ServicePaymentCompletedV1>;

export const SERVICE_PAYMENT_FAILURE_REASONS = [
  'BILLER_REFUSED',
  'RETRIES_EXHAUSTED',
  'COLLECTION_NOT_COMPLETED',
] as const;
export type ServicePaymentFailureReason = (typeof SERVICE_PAYMENT_FAILURE_REASONS)[number];

export const ServicePaymentFailedV1 = eventData({
  internalReference: text,
  reason: enumOf(SERVICE_PAYMENT_FAILURE_REASONS),
  statusMessage: text,
  /** Failed attempts at the biller before this. */
  attempts: minorUnits,
  failedAt: instant,
});
export type ServicePaymentFailedV1 = Static<typeof ServicePaymentFailedV1>;

/**
 * Each ServicePayment event type's data at PAYMENTS_EVENT_SCHEMA_VERSION: the catalogue's and the type's one source.
 */
export const SERVICE_PAYMENT_EVENT_SCHEMAS = {
  [SERVICE_PAYMENT_EVENT_TYPES.opened]: ServicePaymentOpenedV1,
  [SERVICE_PAYMENT_EVENT_TYPES.prnValidationDeferred]: PrnValidationDeferredV1,
  [SERVICE_PAYMENT_EVENT_TYPES.prnConfirmed]: PrnEligibilityConfirmedV1,
  [SERVICE_PAYMENT_EVENT_TYPES.prnRejected]: PrnEligibilityRejectedV1,
  [SERVICE_PAYMENT_EVENT_TYPES.collectionSettled]: CollectionSettlementRecordedV1,
  [SERVICE_PAYMENT_EVENT_TYPES.paymentRequested]: ServicePaymentRequestedV1,
  [SERVICE_PAYMENT_EVENT_TYPES.attemptFailed]: PaymentAttemptFailedV1,
  [SERVICE_PAYMENT_EVENT_TYPES.completed]: ServicePaymentCompletedV1,
  [SERVICE_PAYMENT_EVENT_TYPES.failed]: ServicePaymentFailedV1,
};

export type ServicePaymentEvent = EventsOf<typeof SERVICE_PAYMENT_EVENT_SCHEMAS>;

// ---- wallet ledger ----

/**
 * Double-entry accounts, `<kind>:<currency>` or, for wallets, `merchant_wallet:<merchantId>:<currency>`.
 * A transfer debits one and credits another by the same amount, so the balances of all
 * accounts (credits − debits) always sum to zero.
 */
export type LedgerAccountKind =
  'merchant_wallet' | 'customer_funds' | 'biller_settlement' | 'fee_revenue' | 'top_up' | 'money_out';

export const LEDGER_ACCOUNTS = {
  merchantWallet: (merchantId: string, currency: string) => `merchant_wallet:${merchantId}:${currency}`,
  /** Money that came in from customers (collections). */
  customerFunds: (currency: string) => `customer_funds:${currency}`,
  /** Money paid out to billers (URA). */
  billerSettlement: (currency: string) => `biller_settlement:${currency}`,
  feeRevenue: (currency: string) => `fee_revenue:${currency}`,
  /** Sandbox and admin top-ups. */
  topUp: (currency: string) => `top_up:${currency}`,
  /** Money sent back to customers (refunds) or to merchants' payees (payouts) through a provider. */
  moneyOut: (currency: string) => `money_out:${currency}`,
};

const account = Type.String({
  pattern: '^(merchant_wallet:.+|customer_funds|biller_settlement|fee_revenue|top_up|money_out):[A-Z]{3}$',
});

export const Transfer = closedObject({
  /** Unique in the ledger; a second transfer with the same id is the same transfer. */
  transferId: text,
  debitAccount: account,
  creditAccount: account,
  /** Positive, integer minor units. */
  amount: positiveMinorUnits,
  currency,
});
export type Transfer = Static<typeof Transfer>;

export const WALLET_EVENT_TYPES = {
  collectionCredited: 'WalletCollectionCredited',
  toppedUp: 'WalletToppedUp',
  holdPlaced: 'WalletHoldPlaced',
  holdReleased: 'WalletHoldReleased',
  holdCaptured: 'WalletHoldCaptured',
  moneyOutReversed: 'WalletMoneyOutReversed',
} as const;

export const WalletCollectionCreditedV1 = eventData({
  merchantId: text,
  currency,
  internalReference: text,
  /** customer_funds → wallet (total credit) and, when there is a fee, customer_funds → fee_revenue. */
  transfers: Type.Array(Transfer, { minItems: 1 }),
  creditedAt: instant,
});
export type WalletCollectionCreditedV1 = Static<typeof WalletCollectionCreditedV1>;

export const WalletToppedUpV1 = eventData({
  merchantId: text,
  currency,
  /** top_up → wallet. */
  transfer: Transfer,
  toppedUpAt: instant,
  /** An operator's credit (the admin API; always in a live deployment): who made it and why. Absent before. */
  operator: Type.Optional(text),
  reason: Type.Optional(text),
});
export type WalletToppedUpV1 = Static<typeof WalletToppedUpV1>;

const holdPlaced = { merchantId: text, currency, holdId: text, amount: positiveMinorUnits, placedAt: instant };

/**
 * Reserves part of the wallet's balance: available = balance − held. Moves no money. Version 1: written until
 * WalletHoldPlacedV2.
 */
export const WalletHoldPlacedV1 = eventData(holdPlaced);
export type WalletHoldPlacedV1 = Static<typeof WalletHoldPlacedV1>;

/**
 * FEE: the fee a merchant bears, held at PRN validation; PRN_PAYMENT: the PRN's amount, held until the biller is paid;
 * REFUND and PAYOUT: money out (amount and fee), held from acceptance until the provider's final word.
 */
export const WALLET_HOLD_PURPOSES = ['FEE', 'PRN_PAYMENT', 'REFUND', 'PAYOUT', 'OTHER'] as const;
export type WalletHoldPurpose = (typeof WALLET_HOLD_PURPOSES)[number];

export const WalletHoldPlacedV2 = eventData({
  ...holdPlaced,
  purpose: enumOf(WALLET_HOLD_PURPOSES),
  /** The collection the hold is for (FEE, PRN_PAYMENT); absent otherwise. */
  internalReference: Type.Optional(text),
  /** The merchant's refund_reference or payout_reference (REFUND, PAYOUT); absent otherwise. */
  moneyOutReference: Type.Optional(text),
});
export type WalletHoldPlacedV2 = Static<typeof WalletHoldPlacedV2>;

export const WalletHoldReleasedV1 = eventData({
  merchantId: text,
  currency,
  holdId: text,
  amount: positiveMinorUnits,
  releasedAt: instant,
});
export type WalletHoldReleasedV1 = Static<typeof WalletHoldReleasedV1>;

export const WalletHoldCapturedV1 = eventData({
  merchantId: text,
  currency,
  holdId: text,
  /** wallet → biller_settlement (a PRN payment) or wallet → money_out (a refund or payout), the held amount. */
  transfer: Transfer,
  capturedAt: instant,
});
export type WalletHoldCapturedV1 = Static<typeof WalletHoldCapturedV1>;

/** A provider took back a completed payout: money_out → wallet, the amount the payout captured. */
export const WalletMoneyOutReversedV1 = eventData({
  merchantId: text,
  currency,
  /** The payout's reference. */
  moneyOutReference: text,
  transfer: Transfer,
  reversedAt: instant,
});
export type WalletMoneyOutReversedV1 = Static<typeof WalletMoneyOutReversedV1>;

/** Wallet events as written at version 2 (WALLET_EVENT_SCHEMA_VERSION): WalletHoldPlaced names its purpose. */
export const WALLET_EVENT_SCHEMAS = {
  [WALLET_EVENT_TYPES.collectionCredited]: WalletCollectionCreditedV1,
  [WALLET_EVENT_TYPES.toppedUp]: WalletToppedUpV1,
  [WALLET_EVENT_TYPES.holdPlaced]: WalletHoldPlacedV2,
  [WALLET_EVENT_TYPES.holdReleased]: WalletHoldReleasedV1,
  [WALLET_EVENT_TYPES.holdCaptured]: WalletHoldCapturedV1,
  [WALLET_EVENT_TYPES.moneyOutReversed]: WalletMoneyOutReversedV1,
};

/**
 * Wallet events as written at version 1: the same but for WalletHoldPlaced, which had no purpose. Read upcast to
 * version 2.
 */
export const WALLET_EVENT_SCHEMAS_V1 = { ...WALLET_EVENT_SCHEMAS, [WALLET_EVENT_TYPES.holdPlaced]: WalletHoldPlacedV1 };

export type WalletEvent = EventsOf<typeof WALLET_EVENT_SCHEMAS>;
