import {
  PAYMENTS_INTEGRATION_EVENTS as PAYMENTS,
  type PaymentsIntegrationEvent,
  type PublishedServicePaymentV1,
} from '@paygate/contracts';
import { toMajorUnits } from '@paygate/money';

/** Callback event names of a collect-for-payment's service payment (docs/webhooks.md). */
export const PAYMENT_CALLBACK_EVENTS = {
  completed: 'payment.completed',
  failed: 'payment.failed',
} as const;

export type PaymentCallbackEventName = (typeof PAYMENT_CALLBACK_EVENTS)[keyof typeof PAYMENT_CALLBACK_EVENTS];

/**
 * The payload of payment.completed and payment.failed. id, merchant_reference and
 * internal_reference are the collection's, so the hmac-signature covers the same fields as a
 * collection callback's, with transaction_status COMPLETED or FAILED.
 */
export interface ServicePaymentCallbackPayload {
  id: number;
  merchant_reference: string;
  internal_reference: string;
  transaction_type: 'SERVICE_PAYMENT';
  request_currency: string;
  request_amount: number;
  transaction_status: 'COMPLETED' | 'FAILED';
  /** The PRN paid (or not). */
  account_number: string;
  transaction_charge: number;
  transaction_amount: number;
  customer_name: string;
  service_name: string;
  status_message: string;
  /** Always {} so far: room for biller-specific details without a new payload version. */
  additional_details: Record<string, never>;
  /** Whether a live deployment made it (false for test data). */
  livemode: boolean;
}

export interface ServicePaymentCallbackMessage {
  event: PaymentCallbackEventName;
  payload: ServicePaymentCallbackPayload;
}

/** The published service payment in the callback's field names; amounts back in major units. */
function payloadOf(
  payment: PublishedServicePaymentV1,
  transactionStatus: ServicePaymentCallbackPayload['transaction_status'],
): ServicePaymentCallbackPayload {
  const major = (minor: number) => toMajorUnits(minor, payment.currency);
  return {
    id: payment.id,
    merchant_reference: payment.merchantReference,
    internal_reference: payment.internalReference,
    transaction_type: 'SERVICE_PAYMENT',
    request_currency: payment.currency,
    request_amount: major(payment.requestAmount),
    transaction_status: transactionStatus,
    account_number: payment.prn,
    transaction_charge: major(payment.fee),
    transaction_amount: major(payment.transactionAmount),
    customer_name: payment.customerName,
    service_name: payment.serviceName,
    status_message: payment.statusMessage,
    additional_details: {},
    // Absent from payments published before it was carried: test data.
    livemode: payment.livemode === true,
  };
}

/**
 * The callback a published payments event causes, or null: ServicePaymentCompleted is
 * payment.completed; ServicePaymentFailed and PrnRejected (the PRN may not be paid, so the
 * collection is cancelled) are payment.failed; PrnValidated tells the merchant nothing.
 * transaction_status follows the event, whatever the record says.
 */
export function servicePaymentCallbackFor(event: PaymentsIntegrationEvent): ServicePaymentCallbackMessage | null {
  switch (event.type) {
    case PAYMENTS.completed:
      return { event: PAYMENT_CALLBACK_EVENTS.completed, payload: payloadOf(event.data.payment, 'COMPLETED') };
    case PAYMENTS.failed:
    case PAYMENTS.prnRejected:
      return { event: PAYMENT_CALLBACK_EVENTS.failed, payload: payloadOf(event.data.payment, 'FAILED') };
    case PAYMENTS.prnValidated:
      return null;
  }
}
