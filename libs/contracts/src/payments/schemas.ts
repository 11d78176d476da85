import { nestedSchema, objectSchema, SCHEMA, type JsonSchema } from '../json-schema';
import { PAYMENTS_INTEGRATION_EVENTS } from './integration';
import { PRN_PATTERN, PRN_REJECTION_REASONS } from './prn';

/** JSON Schemas (draft 2020-12) of the payments integration events: what other contexts and analysts can rely on. */
const { text, instant, minorUnits } = SCHEMA;
const object = objectSchema;
const nested = nestedSchema;
const currency = SCHEMA.currency;
const prn = { type: 'string', pattern: PRN_PATTERN };
const reasonCode = { enum: [...PRN_REJECTION_REASONS] };

const publishedPayment = nested(
  object({
    id: { type: 'integer', minimum: 1 },
    merchantId: text,
    merchantReference: text,
    internalReference: text,
    currency,
    requestAmount: minorUnits,
    prn,
    fee: minorUnits,
    transactionAmount: minorUnits,
    chargeCustomer: { type: 'boolean' },
    customerName: text,
    serviceName: text,
    status: { enum: ['PENDING', 'COMPLETED', 'FAILED'] },
    statusMessage: text,
    billerPaymentId: { type: ['string', 'null'] },
  }),
);

/** JSON Schemas of the payments integration events, version 1 (PAYMENTS_INTEGRATION_EVENTS). */
export const PAYMENTS_INTEGRATION_SCHEMAS: Record<string, JsonSchema> = {
  [PAYMENTS_INTEGRATION_EVENTS.prnValidated]: object({ payment: publishedPayment, validatedAt: instant }),
  [PAYMENTS_INTEGRATION_EVENTS.prnRejected]: object({ payment: publishedPayment, reasonCode, reason: text, rejectedAt: instant }),
  [PAYMENTS_INTEGRATION_EVENTS.completed]: object({ payment: publishedPayment, completedAt: instant }),
  [PAYMENTS_INTEGRATION_EVENTS.failed]: object({ payment: publishedPayment, failedAt: instant }),
};
