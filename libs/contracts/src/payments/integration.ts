import { Type, type Static } from '@sinclair/typebox';
import { closedObject, eventData, enumOf, SCHEMA } from '../json-schema';
import {
  UnsupportedEventVersionError,
  type IntegrationEnvelope,
  type IntegrationEventsOf,
  type Publication,
} from '../publication';
import { PRN_REJECTION_REASONS } from './prn';
import { SERVICE_PAYMENT_STATUSES, SERVICE_PAYMENT_STREAM_PREFIX } from './vocabulary';

/**
 * The payments context publishes from its service-payment streams only; wallet streams publish
 * nothing (balances stay inside the context).
 */
export const PAYMENTS_PUBLICATION: Publication = {
  context: 'payments',
  streamPrefixes: [SERVICE_PAYMENT_STREAM_PREFIX],
};

export const PAYMENTS_INTEGRATION_EVENTS = {
  /** The PRN may be paid: collections proceeds with the collection. */
  prnValidated: 'payments.PrnValidated',
  /** The PRN may not be paid (final): collections cancels with "PRN not eligible: <reason>"; payment.failed. */
  prnRejected: 'payments.PrnRejected',
  /** The biller accepted the payment: payment.completed. */
  completed: 'payments.ServicePaymentCompleted',
  /** The PRN was not paid (biller refused, retries spent, collection did not complete): payment.failed. */
  failed: 'payments.ServicePaymentFailed',
} as const;

const { text, textOrNull, instant, minorUnits, currency, id, boolean, prn } = SCHEMA;

/**
 * A service payment as other contexts see it: everything the payment.completed and
 * payment.failed callbacks need. id, merchantReference, internalReference and the amounts are
 * the collection's (integer minor units); the PRN is paid `requestAmount`.
 */
export const PublishedServicePaymentV1 = closedObject({
  id,
  merchantId: text,
  merchantReference: text,
  internalReference: text,
  currency,
  requestAmount: minorUnits,
  /** The callback's account_number. */
  prn,
  /** The callback's transaction_charge. */
  fee: minorUnits,
  transactionAmount: minorUnits,
  chargeCustomer: boolean,
  customerName: text,
  serviceName: text,
  status: enumOf(SERVICE_PAYMENT_STATUSES),
  statusMessage: text,
  /** The biller's id of the payment, once COMPLETED. */
  billerPaymentId: textOrNull,
  /**
   * Opened for a collection of a live deployment (MODE=live). Absent from events published before it was carried:
   * test data, read as false (an optional field, so every stored version-1 event still matches).
   */
  livemode: Type.Optional(boolean),
});
export type PublishedServicePaymentV1 = Static<typeof PublishedServicePaymentV1>;

export const PrnValidatedV1 = eventData({ payment: PublishedServicePaymentV1, validatedAt: instant });
export type PrnValidatedV1 = Static<typeof PrnValidatedV1>;

export const PrnRejectedV1 = eventData({
  payment: PublishedServicePaymentV1,
  reasonCode: enumOf(PRN_REJECTION_REASONS),
  /** e.g. "already paid". */
  reason: text,
  rejectedAt: instant,
});
export type PrnRejectedV1 = Static<typeof PrnRejectedV1>;

export const ServicePaymentCompletedIntegrationV1 = eventData({
  payment: PublishedServicePaymentV1,
  completedAt: instant,
});
export type ServicePaymentCompletedIntegrationV1 = Static<typeof ServicePaymentCompletedIntegrationV1>;

export const ServicePaymentFailedIntegrationV1 = eventData({ payment: PublishedServicePaymentV1, failedAt: instant });
export type ServicePaymentFailedIntegrationV1 = Static<typeof ServicePaymentFailedIntegrationV1>;

/** The payments integration events at PAYMENTS_INTEGRATION_VERSION: the catalogue's and the type's one source. */
export const PAYMENTS_INTEGRATION_SCHEMAS = {
  [PAYMENTS_INTEGRATION_EVENTS.prnValidated]: PrnValidatedV1,
  [PAYMENTS_INTEGRATION_EVENTS.prnRejected]: PrnRejectedV1,
  [PAYMENTS_INTEGRATION_EVENTS.completed]: ServicePaymentCompletedIntegrationV1,
  [PAYMENTS_INTEGRATION_EVENTS.failed]: ServicePaymentFailedIntegrationV1,
};

export type PaymentsIntegrationEvent = IntegrationEventsOf<typeof PAYMENTS_INTEGRATION_SCHEMAS>;

export const PAYMENTS_INTEGRATION_VERSION = 1;

const PAYMENTS_INTEGRATION_TYPES = new Set<string>(Object.values(PAYMENTS_INTEGRATION_EVENTS));

/**
 * Recognises a payments integration event at a version this consumer understands; other types
 * are not payments events (undefined), a version from the future is an error, so an old
 * consumer stops (and is redelivered to) rather than misreading it.
 */
export function readPaymentsIntegrationEvent(event: IntegrationEnvelope): PaymentsIntegrationEvent | undefined {
  if (!PAYMENTS_INTEGRATION_TYPES.has(event.type)) return undefined;
  if (event.version !== PAYMENTS_INTEGRATION_VERSION)
    throw new UnsupportedEventVersionError(event.type, event.version, [PAYMENTS_INTEGRATION_VERSION]);
  return event as PaymentsIntegrationEvent;
}
