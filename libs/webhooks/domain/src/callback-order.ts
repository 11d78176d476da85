import {
  COLLECTION_INTEGRATION_EVENTS as COLLECTIONS,
  PAYMENTS_INTEGRATION_EVENTS as PAYMENTS,
  type CollectionIntegrationEvent,
  type PaymentsIntegrationEvent,
} from '@paygate/contracts';
import { CALLBACK_EVENTS } from './collection-callbacks';
import { PAYMENT_CALLBACK_EVENTS } from './service-payment-callbacks';

/**
 * Where a callback stands among the callbacks of its transaction (internal_reference).
 *
 * The queue sends a transaction's callbacks to one URL in ascending `sequence`, each only once
 * every earlier one is delivered or abandoned. A collection's callbacks use their stream
 * revision. A service payment's come from another stream (`service-payment-<ref>`, another
 * Kafka topic), whose revisions say nothing about the collection's, so they take a band of
 * their own by cause: a payment.failed for a rejected PRN happened before the collection
 * could even open (PAYMENT_BEFORE_COLLECTION, below every revision), payment.completed and a
 * payment.failed after the collection settled can only follow the collection's final callback
 * (PAYMENT_AFTER_COLLECTION, above every revision).
 *
 * A sequence orders only callbacks already in the queue, and the two streams reach the
 * dispatcher in no particular order (in Kafka a payments event can overtake the collection
 * event that caused it). So a callback also names, in `awaits`, the callbacks of its
 * transaction that cause it: it is not sent before one of them is in the queue, whatever that
 * one's URL (the URL it will have is not known before it is there). The awaited callback always
 * comes (every settled collection and every payment verdict is queued, undeliverable when its
 * URL is missing), and only the dispatcher's own consumption of an event already published is
 * waited for, never another service.
 */
export interface CallbackOrder {
  /** Order among the transaction's callbacks to one URL, lowest first. */
  sequence: number;
  /** Callback event names of the same transaction one of which must be queued before this is sent; [] for none. */
  awaits: string[];
}

/** A collection stream's revisions stay far below this. */
const BAND = 1_000_000_000;
/** A payment callback that precedes every collection callback: payment.failed for a rejected PRN. */
export const PAYMENT_BEFORE_COLLECTION = -BAND;
/**
 * A payment callback that follows every collection callback: payment.completed, payment.failed once the collection
 * settled.
 */
export const PAYMENT_AFTER_COLLECTION = BAND;

/**
 * A refund callback: after every callback of its collection and of the collection's payment
 * (the sequence is an int4: 2e9 leaves room below 2^31). All refunds of a collection share it:
 * each refund has one callback, and refunds of one collection are independent of one another
 * (their streams reach the dispatcher in no particular order), so none waits for another.
 */
export const REFUND_AFTER_COLLECTION = 2 * BAND;

const COLLECTION_FINAL_CALLBACKS = [CALLBACK_EVENTS.completed, CALLBACK_EVENTS.failed, CALLBACK_EVENTS.cancelled];

/** Cancellations of a collect-for-payment collection before the PRN verdict reached it. */
const BEFORE_VERDICT = new Set(['PRN_NOT_ELIGIBLE', 'PRN_VALIDATION_TIMEOUT']);

/**
 * True for the final callback of a collect-for-payment collection cancelled before it had the
 * PRN verdict: because the PRN was rejected, or because the verdict deadline passed (an outage
 * delayed it). Either way a payment.failed follows for certain (the refusal, or the failure the
 * cancellation causes), so the cancellation waits until it is queued and the sequence decides:
 * a refusal's payment.failed first, whichever stream the dispatcher reads first; the failure
 * the cancellation caused after it.
 */
export function isCancelledBeforeVerdict(event: CollectionIntegrationEvent): boolean {
  return event.type === COLLECTIONS.settled && BEFORE_VERDICT.has(event.data.collection.cancellationReason ?? '');
}

export function collectionCallbackOrder(event: CollectionIntegrationEvent): CallbackOrder {
  return { sequence: event.revision, awaits: isCancelledBeforeVerdict(event) ? [PAYMENT_CALLBACK_EVENTS.failed] : [] };
}

export function servicePaymentCallbackOrder(event: PaymentsIntegrationEvent): CallbackOrder {
  switch (event.type) {
    case PAYMENTS.prnValidated: // causes no callback; like the rejection it precedes the collection's opening
    case PAYMENTS.prnRejected:
      // Sent before any collection callback: the collection never opened and is cancelled because of it.
      return { sequence: PAYMENT_BEFORE_COLLECTION + event.revision, awaits: [] };
    case PAYMENTS.completed:
      // The PRN is paid only from a completed collection.
      return { sequence: PAYMENT_AFTER_COLLECTION + event.revision, awaits: [CALLBACK_EVENTS.completed] };
    case PAYMENTS.failed:
      // Decided only once the collection settled (refused, retries spent, or the collection did not complete).
      return { sequence: PAYMENT_AFTER_COLLECTION + event.revision, awaits: [...COLLECTION_FINAL_CALLBACKS] };
  }
}

/**
 * A refund is made only of a COMPLETED collection, so its callback follows the collection's
 * transaction.completed, and waits until that one is queued: the disbursements topic may reach
 * the dispatcher ahead of the collections topic.
 */
export function refundCallbackOrder(): CallbackOrder {
  return { sequence: REFUND_AFTER_COLLECTION, awaits: [CALLBACK_EVENTS.completed] };
}
