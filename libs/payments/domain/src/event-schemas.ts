import { nestedSchema, objectSchema, PRN_PATTERN, PRN_REJECTION_REASONS, SCHEMA, type JsonSchema } from '@paygate/contracts';
import { SERVICE_PAYMENT_EVENT_TYPES, WALLET_EVENT_TYPES, WALLET_HOLD_PURPOSES } from './events';

/**
 * JSON Schemas (draft 2020-12) of the payments context's domain events (the service payment's at
 * version 1, the wallet's at versions 1 and 2): what analysts replaying streams can rely on. The
 * payments domain's specs check every event it emits against these.
 */
const { text, instant, minorUnits, positiveMinorUnits, currency } = SCHEMA;
const object = objectSchema;
const nested = nestedSchema;
const prn = { type: 'string', pattern: PRN_PATTERN };
const reasonCode = { enum: [...PRN_REJECTION_REASONS] };
const account = { type: 'string', pattern: '^(merchant_wallet:.+|customer_funds|biller_settlement|fee_revenue|top_up):[A-Z]{3}$' };

export const SERVICE_PAYMENT_EVENT_SCHEMAS: Record<string, JsonSchema> = {
  [SERVICE_PAYMENT_EVENT_TYPES.opened]: object({
    id: { type: 'integer', minimum: 1 },
    merchantId: text,
    merchantReference: text,
    internalReference: text,
    currency,
    requestAmount: minorUnits,
    transactionAmount: minorUnits,
    fee: minorUnits,
    totalCredit: minorUnits,
    chargeCustomer: { type: 'boolean' },
    customerName: text,
    prn,
    serviceName: text,
    openedAt: instant,
  }),
  [SERVICE_PAYMENT_EVENT_TYPES.prnValidationDeferred]: object({
    internalReference: text,
    attempt: { type: 'integer', minimum: 1 },
    reason: text,
    nextAttemptAt: instant,
    deferredAt: instant,
  }),
  [SERVICE_PAYMENT_EVENT_TYPES.prnConfirmed]: object({ internalReference: text, prn, validatedAt: instant }, { feeHoldId: text }),
  [SERVICE_PAYMENT_EVENT_TYPES.prnRejected]: object({ internalReference: text, prn, reasonCode, reason: text, statusMessage: text, rejectedAt: instant }),
  [SERVICE_PAYMENT_EVENT_TYPES.collectionSettled]: object({
    internalReference: text,
    collectionStatus: { enum: ['COMPLETED', 'FAILED', 'CANCELLED'] },
    collectionStatusMessage: text,
    recordedAt: instant,
  }),
  [SERVICE_PAYMENT_EVENT_TYPES.paymentRequested]: object({
    internalReference: text,
    prn,
    amount: minorUnits,
    currency,
    idempotencyKey: text,
    requestedAt: instant,
  }),
  [SERVICE_PAYMENT_EVENT_TYPES.attemptFailed]: object({
    internalReference: text,
    attempt: { type: 'integer', minimum: 1 },
    reason: text,
    nextAttemptAt: instant,
    failedAt: instant,
  }),
  [SERVICE_PAYMENT_EVENT_TYPES.completed]: object(
    { internalReference: text, billerPaymentId: text, statusMessage: text, completedAt: instant },
    { receiptNumber: text },
  ),
  [SERVICE_PAYMENT_EVENT_TYPES.failed]: object({
    internalReference: text,
    reason: { enum: ['BILLER_REFUSED', 'RETRIES_EXHAUSTED', 'COLLECTION_NOT_COMPLETED'] },
    statusMessage: text,
    attempts: minorUnits,
    failedAt: instant,
  }),
};

const transfer = nested(object({ transferId: text, debitAccount: account, creditAccount: account, amount: positiveMinorUnits, currency }));

/** Wallet events as written at version 2 (WALLET_EVENT_SCHEMA_VERSION): WalletHoldPlaced names its purpose. */
export const WALLET_EVENT_SCHEMAS: Record<string, JsonSchema> = {
  [WALLET_EVENT_TYPES.collectionCredited]: object({
    merchantId: text,
    currency,
    internalReference: text,
    transfers: { type: 'array', minItems: 1, items: transfer },
    creditedAt: instant,
  }),
  [WALLET_EVENT_TYPES.toppedUp]: object({ merchantId: text, currency, transfer, toppedUpAt: instant }),
  [WALLET_EVENT_TYPES.holdPlaced]: object(
    { merchantId: text, currency, holdId: text, amount: positiveMinorUnits, placedAt: instant, purpose: { enum: [...WALLET_HOLD_PURPOSES] } },
    { internalReference: text },
  ),
  [WALLET_EVENT_TYPES.holdReleased]: object({ merchantId: text, currency, holdId: text, amount: positiveMinorUnits, releasedAt: instant }),
  [WALLET_EVENT_TYPES.holdCaptured]: object({ merchantId: text, currency, holdId: text, transfer, capturedAt: instant }),
};

/** Wallet events as written at version 1: the same but for WalletHoldPlaced, which had no purpose. Read upcast to version 2. */
export const WALLET_EVENT_SCHEMAS_V1: Record<string, JsonSchema> = {
  ...WALLET_EVENT_SCHEMAS,
  [WALLET_EVENT_TYPES.holdPlaced]: object({ merchantId: text, currency, holdId: text, amount: positiveMinorUnits, placedAt: instant }),
};
