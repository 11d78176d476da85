import { nestedSchema, objectSchema, SCHEMA, type JsonSchema } from '../json-schema';
import { COLLECTION_INTEGRATION_EVENTS } from './integration';
import { COLLECTION_CANCELLATION_REASONS } from './vocabulary';

/** JSON Schemas (draft 2020-12) of the collections integration events: what other contexts and analysts can rely on. */
const { text, instant, minorUnits } = SCHEMA;
const object = objectSchema;

const publishedCollection = nestedSchema(
  objectSchema(
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
      transactionAccount: { type: ['string', 'null'] },
      status: { enum: ['PENDING', 'COMPLETED', 'FAILED', 'CANCELLED'] },
      statusMessage: text,
    },
    { prn: { type: 'string', pattern: '^[0-9]{1,32}$' }, cancellationReason: { enum: [...COLLECTION_CANCELLATION_REASONS] } },
  ),
);

/** JSON Schemas of the collections integration events, version 1 (COLLECTION_INTEGRATION_EVENTS). */
export const COLLECTION_INTEGRATION_SCHEMAS: Record<string, JsonSchema> = {
  [COLLECTION_INTEGRATION_EVENTS.opened]: object({ collection: publishedCollection, openedAt: instant }),
  [COLLECTION_INTEGRATION_EVENTS.settled]: object({ collection: publishedCollection, settledAt: instant }),
  [COLLECTION_INTEGRATION_EVENTS.servicePaymentRequested]: object({ collection: publishedCollection, requestedAt: instant }),
};
