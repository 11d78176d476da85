import {
  DISBURSEMENTS_INTEGRATION_EVENTS as DISBURSEMENTS,
  type DisbursementsIntegrationEvent,
  type PublishedRefundV1,
  type RefundRecord,
} from '@paygate/contracts';
import { toMajorUnits } from '@paygate/money';

/** Callback event names of a refund (docs/webhooks.md), sent to the collection callback URL. */
export const REFUND_CALLBACK_EVENTS = {
  completed: 'refund.completed',
  failed: 'refund.failed',
} as const;

export type RefundCallbackEventName = (typeof REFUND_CALLBACK_EVENTS)[keyof typeof REFUND_CALLBACK_EVENTS];

/**
 * The payload of refund.completed and refund.failed: the refund record as `GET /v1/refunds/{refund_reference}`
 * shows it once final (so pending_reason is null), with the refunded collection's merchant_reference. Its
 * hmac-signature covers refund_reference, internal_reference, status and merchant_reference.
 */
export interface RefundCallbackPayload extends Omit<RefundRecord, 'status'> {
  merchant_reference: string;
  status: PublishedRefundV1['status'];
}

export interface RefundCallbackMessage {
  event: RefundCallbackEventName;
  payload: RefundCallbackPayload;
}

/** The published refund in the record's field names; the amount back in major units. */
function payloadOf(refund: PublishedRefundV1): RefundCallbackPayload {
  return {
    refund_reference: refund.refundReference,
    internal_reference: refund.internalReference,
    merchant_reference: refund.merchantReference,
    amount: toMajorUnits(refund.amount, refund.currency),
    currency: refund.currency,
    status: refund.status,
    pending_reason: null,
    failure_reason: refund.failureReason,
    reason: refund.reason,
    livemode: refund.livemode,
    created_at: refund.createdAt,
    updated_at: refund.updatedAt,
  };
}

export type RefundSettledEvent = Extract<DisbursementsIntegrationEvent, { type: typeof DISBURSEMENTS.refundSettled }>;

/** A published disbursements event that settles a refund (the others are payouts'). */
export const isRefundSettled = (event: DisbursementsIntegrationEvent): event is RefundSettledEvent =>
  event.type === DISBURSEMENTS.refundSettled;

/** The callback a settled refund causes: refund.completed or refund.failed. */
export function refundCallbackFor(event: RefundSettledEvent): RefundCallbackMessage {
  const { refund } = event.data;
  return {
    event: refund.status === 'COMPLETED' ? REFUND_CALLBACK_EVENTS.completed : REFUND_CALLBACK_EVENTS.failed,
    payload: payloadOf(refund),
  };
}
