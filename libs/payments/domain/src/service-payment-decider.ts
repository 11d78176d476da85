import { eventReader, type PublishedEvent, type StreamDecider } from '@paygate/decider';
import {
  PAYMENTS_INTEGRATION_EVENTS as PUBLISHED,
  PAYMENTS_INTEGRATION_VERSION,
  servicePaymentStream,
  type PublishedServicePaymentV1,
  type ServicePaymentStatus,
} from '@paygate/contracts';
import {
  PAYMENTS_EVENT_SCHEMA_VERSION,
  SERVICE_PAYMENT_EVENT_TYPES as EVENTS,
  type ServicePaymentEvent,
} from './events';
import { MESSAGES } from './messages';
import {
  decideServicePayment,
  evolveServicePayment,
  type ServicePayment,
  type ServicePaymentCommand,
  type ServicePaymentState,
} from './service-payment';

/** Version 1 is the only shape written so far; a later version adds its upcasters here. */
const readServicePaymentEvent = eventReader<ServicePaymentEvent>({
  types: Object.values(EVENTS),
  currentVersion: PAYMENTS_EVENT_SCHEMA_VERSION,
});

/** What other contexts learn about a service payment (PAYMENTS_PUBLICATION). */
export function toPublishedServicePayment(
  payment: ServicePayment,
  status: ServicePaymentStatus = payment.status,
  statusMessage = payment.statusMessage,
): PublishedServicePaymentV1 {
  const data = payment.opened;
  return {
    id: data.id,
    merchantId: data.merchantId,
    merchantReference: data.merchantReference,
    internalReference: data.internalReference,
    currency: data.currency,
    requestAmount: data.requestAmount,
    prn: data.prn,
    fee: data.fee,
    transactionAmount: data.transactionAmount,
    chargeCustomer: data.chargeCustomer,
    customerName: data.customerName,
    serviceName: data.serviceName,
    status,
    statusMessage,
    billerPaymentId: payment.billerPaymentId ?? null,
    livemode: data.livemode === true,
  };
}

/**
 * The ServicePayment on the shared decider runtime: stream `service-payment-<internal_reference>`.
 * Each published event follows from exactly one domain event, and a domain event is decided
 * once per transition (final states decide nothing), so each is published exactly once. Each
 * carries the record as of its own transition: a PrnValidated appended together with the
 * payment request still says PENDING and "PRN validated".
 */
export const servicePaymentDecider: StreamDecider<ServicePaymentCommand, ServicePaymentEvent, ServicePaymentState> = {
  decide: decideServicePayment,
  evolve: evolveServicePayment,
  initialState: null,
  streamName: servicePaymentStream,
  schemaVersion: PAYMENTS_EVENT_SCHEMA_VERSION,
  read: readServicePaymentEvent,
  publish(events, after) {
    if (!after) return [];
    const published: PublishedEvent[] = [];
    const version = PAYMENTS_INTEGRATION_VERSION;
    for (const event of events) {
      switch (event.type) {
        case EVENTS.prnConfirmed:
          published.push({
            type: PUBLISHED.prnValidated,
            version,
            data: {
              payment: toPublishedServicePayment(after, 'PENDING', MESSAGES.prnValidated),
              validatedAt: event.data.validatedAt,
            },
          });
          break;
        case EVENTS.prnRejected: {
          const { reasonCode, reason, statusMessage, rejectedAt } = event.data;
          published.push({
            type: PUBLISHED.prnRejected,
            version,
            data: {
              payment: toPublishedServicePayment(after, 'FAILED', statusMessage),
              reasonCode,
              reason,
              rejectedAt,
            },
          });
          break;
        }
        case EVENTS.completed:
          published.push({
            type: PUBLISHED.completed,
            version,
            data: {
              payment: toPublishedServicePayment(after, 'COMPLETED', event.data.statusMessage),
              completedAt: event.data.completedAt,
            },
          });
          break;
        case EVENTS.failed:
          published.push({
            type: PUBLISHED.failed,
            version,
            data: {
              payment: toPublishedServicePayment(after, 'FAILED', event.data.statusMessage),
              failedAt: event.data.failedAt,
            },
          });
          break;
      }
    }
    return published;
  },
};
