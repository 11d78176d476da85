import { UnsupportedEventVersionError, type IntegrationEnvelope, type Publication } from '../publication';
import { SERVICE_PAYMENT_STREAM_PREFIX, type ServicePaymentStatus } from './vocabulary';
import type { PrnRejectionReason } from './prn';

/**
 * The payments context publishes from its service-payment streams only; wallet streams publish
 * nothing (balances stay inside the context).
 */
export const PAYMENTS_PUBLICATION: Publication = { context: 'payments', streamPrefixes: [SERVICE_PAYMENT_STREAM_PREFIX] };

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

/**
 * A service payment as other contexts see it: everything the payment.completed and
 * payment.failed callbacks need. id, merchantReference, internalReference and the amounts are
 * the collection's (integer minor units); the PRN is paid `requestAmount`.
 */
export interface PublishedServicePaymentV1 {
  id: number;
  merchantId: string;
  merchantReference: string;
  internalReference: string;
  currency: string;
  requestAmount: number;
  /** The callback's account_number. */
  prn: string;
  /** The callback's transaction_charge. */
  fee: number;
  transactionAmount: number;
  chargeCustomer: boolean;
  customerName: string;
  serviceName: string;
  status: ServicePaymentStatus;
  statusMessage: string;
  /** The biller's id of the payment, once COMPLETED. */
  billerPaymentId: string | null;
}

export interface PrnValidatedV1 {
  payment: PublishedServicePaymentV1;
  validatedAt: string;
}

export interface PrnRejectedV1 {
  payment: PublishedServicePaymentV1;
  reasonCode: PrnRejectionReason;
  /** e.g. "already paid". */
  reason: string;
  rejectedAt: string;
}

export interface ServicePaymentCompletedIntegrationV1 {
  payment: PublishedServicePaymentV1;
  completedAt: string;
}

export interface ServicePaymentFailedIntegrationV1 {
  payment: PublishedServicePaymentV1;
  failedAt: string;
}

export type PaymentsIntegrationEvent =
  | IntegrationEnvelope<typeof PAYMENTS_INTEGRATION_EVENTS.prnValidated, PrnValidatedV1>
  | IntegrationEnvelope<typeof PAYMENTS_INTEGRATION_EVENTS.prnRejected, PrnRejectedV1>
  | IntegrationEnvelope<typeof PAYMENTS_INTEGRATION_EVENTS.completed, ServicePaymentCompletedIntegrationV1>
  | IntegrationEnvelope<typeof PAYMENTS_INTEGRATION_EVENTS.failed, ServicePaymentFailedIntegrationV1>;

export const PAYMENTS_INTEGRATION_VERSION = 1;

const PAYMENTS_INTEGRATION_TYPES = new Set<string>(Object.values(PAYMENTS_INTEGRATION_EVENTS));

/**
 * Recognises a payments integration event at a version this consumer understands; other types
 * are not payments events (undefined), a version from the future is an error, so an old
 * consumer stops (and is redelivered to) rather than misreading it.
 */
export function readPaymentsIntegrationEvent(event: IntegrationEnvelope): PaymentsIntegrationEvent | undefined {
  if (!PAYMENTS_INTEGRATION_TYPES.has(event.type)) return undefined;
  if (event.version !== PAYMENTS_INTEGRATION_VERSION) throw new UnsupportedEventVersionError(event.type, event.version, [PAYMENTS_INTEGRATION_VERSION]);
  return event as PaymentsIntegrationEvent;
}
