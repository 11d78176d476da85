import {
  DISBURSEMENTS_INTEGRATION_EVENTS as DISBURSEMENTS,
  type DisbursementsIntegrationEvent,
  type PublishedPayoutV1,
} from '@paygate/contracts';
import { toMajorUnits } from '@paygate/money';
import type { CallbackOrder } from './callback-order';

/** Callback event names of a payout (docs/webhooks.md), sent to the payouts callback URL. */
export const PAYOUT_CALLBACK_EVENTS = {
  completed: 'payout.completed',
  failed: 'payout.failed',
  reversed: 'payout.reversed',
} as const;

export type PayoutCallbackEventName = (typeof PAYOUT_CALLBACK_EVENTS)[keyof typeof PAYOUT_CALLBACK_EVENTS];

/**
 * The payload of payout.*: the payout record as the merchant API shows it, amount and fee in major units. Its
 * hmac-signature covers payout_reference, status, provider_code and msisdn.
 */
export interface PayoutCallbackPayload {
  payout_reference: string;
  amount: number;
  fee: number;
  currency: string;
  provider_code: string;
  msisdn: string;
  recipient_name: string | null;
  status: PublishedPayoutV1['status'];
  failure_reason: string | null;
  livemode: boolean;
  created_at: string;
  updated_at: string;
}

export interface PayoutCallbackMessage {
  event: PayoutCallbackEventName;
  payload: PayoutCallbackPayload;
}

/**
 * Which callback each final state sends. A CANCELLED payout (never approved) sends payout.failed: every payout the
 * merchant asked for ends with one callback saying whether the money left, and a CANCELLED one did not, as a FAILED
 * one did not; the payload's status and failure_reason tell the two apart.
 */
const EVENT_OF_STATUS: Record<PublishedPayoutV1['status'], PayoutCallbackEventName> = {
  COMPLETED: PAYOUT_CALLBACK_EVENTS.completed,
  FAILED: PAYOUT_CALLBACK_EVENTS.failed,
  CANCELLED: PAYOUT_CALLBACK_EVENTS.failed,
  REVERSED: PAYOUT_CALLBACK_EVENTS.reversed,
};

export type PayoutSettledEvent = Extract<DisbursementsIntegrationEvent, { type: typeof DISBURSEMENTS.payoutSettled }>;

/** A published disbursements event that settles a payout (the others are refunds'). */
export const isPayoutSettled = (event: DisbursementsIntegrationEvent): event is PayoutSettledEvent =>
  event.type === DISBURSEMENTS.payoutSettled;

/** The callback a settled payout causes: payout.completed, payout.failed or payout.reversed. */
export function payoutCallbackFor(event: PayoutSettledEvent): PayoutCallbackMessage {
  const { payout } = event.data;
  return {
    event: EVENT_OF_STATUS[payout.status],
    payload: {
      payout_reference: payout.payoutReference,
      amount: toMajorUnits(payout.amount, payout.currency),
      fee: toMajorUnits(payout.fee, payout.currency),
      currency: payout.currency,
      provider_code: payout.providerCode,
      msisdn: payout.msisdn,
      recipient_name: payout.recipientName,
      status: payout.status,
      failure_reason: payout.failureReason,
      livemode: payout.livemode,
      created_at: payout.createdAt,
      updated_at: payout.updatedAt,
    },
  };
}

/**
 * The key the queue files a payout's callbacks under, where a collection's use its internal_reference (the callback
 * log, resend, the order rule): no internal reference has a colon, so a payout never shares a collection's.
 */
export const payoutDeliveryKey = (payoutReference: string) => `payout:${payoutReference}`;

/**
 * A payout's callbacks follow their stream: a reversal comes after the completion it takes back. Both come from the
 * payout's one stream, which reaches the dispatcher in order, so nothing is awaited (a payout reversed before its
 * completion was published has only the reversal to send).
 */
export function payoutCallbackOrder(event: PayoutSettledEvent): CallbackOrder {
  return { sequence: event.revision, awaits: [] };
}
