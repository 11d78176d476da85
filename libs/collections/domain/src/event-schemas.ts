import { COLLECTION_CANCELLATION_REASONS, objectSchema, SCHEMA, type JsonSchema } from '@paygate/contracts';
import { COLLECTION_EVENT_TYPES } from './events';

/**
 * JSON Schemas (draft 2020-12) of the collection's domain events, version 1: what analysts
 * replaying streams can rely on. `collection.event-schemas.spec.ts` checks every event the
 * decider emits against these.
 */
const { text, instant, minorUnits } = SCHEMA;
const object = objectSchema;

export const COLLECTION_EVENT_SCHEMAS: Record<string, JsonSchema> = {
  [COLLECTION_EVENT_TYPES.initiated]: object(
    {
      id: { type: 'integer', minimum: 1 },
      merchantId: text,
      merchantReference: text,
      internalReference: text,
      transactionMethod: { enum: ['MOBILE_MONEY', 'CARD'] },
      providerCode: text,
      institutionName: text,
      currency: { type: 'string', pattern: '^[A-Z]{3}$' },
      requestAmount: minorUnits,
      transactionAmount: minorUnits,
      fee: minorUnits,
      totalCredit: minorUnits,
      chargeCustomer: { type: 'boolean' },
      requireConfirmation: { type: 'boolean' },
      customerName: text,
      requestHash: { type: 'string', pattern: '^[0-9a-f]{64}$' },
      initiatedAt: instant,
    },
    {
      msisdn: { type: 'string', pattern: '^[0-9]+$' },
      customerEmail: text,
      description: { type: 'string' },
      redirectUrl: text,
      prn: { type: 'string', pattern: '^[0-9]{1,32}$' },
      confirmationExpiresAt: instant,
    },
  ),
  [COLLECTION_EVENT_TYPES.confirmed]: object({ internalReference: text, confirmedAt: instant, implicit: { type: 'boolean' }, providerExpiresAt: instant }),
  [COLLECTION_EVENT_TYPES.pinPromptSent]: object({ internalReference: text, providerReference: text, sentAt: instant }),
  [COLLECTION_EVENT_TYPES.cardCheckoutOpened]: object({ internalReference: text, providerReference: text, paymentUrl: text, openedAt: instant }),
  [COLLECTION_EVENT_TYPES.completed]: object({
    internalReference: text,
    providerTransactionId: text,
    transactionAccount: text,
    statusMessage: text,
    completedAt: instant,
  }),
  [COLLECTION_EVENT_TYPES.failed]: object({
    internalReference: text,
    reason: { enum: ['INSUFFICIENT_FUNDS', 'DECLINED', 'PROVIDER_ERROR'] },
    statusMessage: text,
    failedAt: instant,
  }),
  [COLLECTION_EVENT_TYPES.cancelled]: object({
    internalReference: text,
    reason: { enum: [...COLLECTION_CANCELLATION_REASONS] },
    statusMessage: text,
    cancelledAt: instant,
  }),
  [COLLECTION_EVENT_TYPES.prnAccepted]: object({ internalReference: text, acceptedAt: instant }),
};
