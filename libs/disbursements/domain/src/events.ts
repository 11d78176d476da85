import { closedObject, enumOf, eventData, SCHEMA, type EventsOf } from '@paygate/contracts';
import { Type, type Static } from '@sinclair/typebox';

/**
 * Domain events of the disbursements context: money that leaves a merchant's wallet through a provider. A money-out
 * (a refund to a collection's payer, or a payout to a mobile money number) is one stream,
 * `refund-<merchantId>:<refund_reference>` or `payout-<merchantId>:<payout_reference>`; a collection's refunds share
 * one allocation stream, `refundable-<internal_reference>`, so together they never exceed what was collected; a
 * merchant's payouts of a day share one, `payoutday-<merchantId>:<currency>:<YYYY-MM-DD>`, counted against its cap.
 * Amounts are integer minor units. Written at DISBURSEMENTS_EVENT_SCHEMA_VERSION.
 */
export const DISBURSEMENTS_EVENT_SCHEMA_VERSION = 1;

const { text, textOrNull, instant, minorUnits, currency } = SCHEMA;
const positiveMinorUnits = Type.Integer({ minimum: 1 });

export const MONEY_OUT_KINDS = ['REFUND', 'PAYOUT'] as const;
export type MoneyOutKind = (typeof MONEY_OUT_KINDS)[number];

/** What was asked, as the merchant asked it and as Paygate resolved it: the same reference must ask the same again. */
export const MoneyOutRequest = closedObject({
  kind: enumOf(MONEY_OUT_KINDS),
  merchantId: text,
  reference: text,
  currency,
  /** What the merchant asked for; null when it left the amount out (a refund of all that is left). */
  requestedAmount: Type.Union([positiveMinorUnits, Type.Null()]),
  /** What leaves the customer-facing side: the refund or payout amount. */
  amount: positiveMinorUnits,
  /** Paygate's fee for it, held and paid from the wallet with the amount. */
  fee: minorUnits,
  providerCode: text,
  /** REFUND: the collection refunded, and the merchant's reference of it. */
  internalReference: textOrNull,
  merchantReference: textOrNull,
  /** PAYOUT: the number paid; REFUND: the collection's payer (a partial refund a provider cannot do goes there). */
  msisdn: textOrNull,
  /** PAYOUT: the account holder's name as the provider gave it. */
  recipientName: textOrNull,
  reason: textOrNull,
  /** Asked of a live deployment (real money), or of a test one. */
  livemode: SCHEMA.boolean,
  /**
   * REFUND only: paid out to `msisdn` by the provider's payout product, as its provider refunds only whole payments
   * and this refund is a part of one. Absent: false.
   */
  refundAsPayout: Type.Optional(SCHEMA.boolean),
  requestedAt: instant,
});
export type MoneyOutRequest = Static<typeof MoneyOutRequest>;

export const MONEY_OUT_EVENT_TYPES = {
  requested: 'MoneyOutRequested',
  sent: 'MoneyOutSent',
  unconfirmed: 'MoneyOutUnconfirmed',
  completed: 'MoneyOutCompleted',
  failed: 'MoneyOutFailed',
  flagged: 'MoneyOutFlaggedForAttention',
  holdSettled: 'MoneyOutHoldSettled',
  awaitingApproval: 'PayoutAwaitingApproval',
  approved: 'PayoutApproved',
  cancelled: 'PayoutCancelled',
  reversed: 'PayoutReversed',
  reversalCredited: 'PayoutReversalCredited',
} as const;

/** Accepted, its wallet hold placed: the provider is asked next. */
export const MoneyOutRequestedV1 = eventData({ request: MoneyOutRequest });
/** The provider registered the request (HTTP 202, or 409 for the reference sent before). */
export const MoneyOutSentV1 = eventData({ attempt: Type.Integer({ minimum: 1 }), sentAt: instant });
/** The provider did not say whether it registered the request (time-out, 5xx, no answer): only asking tells. */
export const MoneyOutUnconfirmedV1 = eventData({ attempt: Type.Integer({ minimum: 1 }), detail: text, at: instant });
export const MoneyOutCompletedV1 = eventData({ providerTransactionId: text, completedAt: instant });
/** Only the provider's word: a refusal of the request, or a final FAILED status. */
export const MoneyOutFailedV1 = eventData({ reason: text, failedAt: instant });
/** Still unconfirmed after the configured time: listed for operators. */
export const MoneyOutFlaggedForAttentionV1 = eventData({ flaggedAt: instant });
/** The wallet hold was captured (PAID) or released (NOT_PAID): the money-out has nothing more to do. */
export const MoneyOutHoldSettledV1 = eventData({ outcome: enumOf(['PAID', 'NOT_PAID'] as const), settledAt: instant });

/**
 * A payout above its merchant's approval threshold, accepted with its hold placed: it is not sent until an owner
 * approves it. `createdBy`: the dashboard user who asked for it (that user may not approve it), null for the API.
 */
export const PayoutAwaitingApprovalV1 = eventData({ threshold: minorUnits, createdBy: textOrNull, at: instant });
export const PayoutApprovedV1 = eventData({ approvedBy: text, approvedAt: instant });
/** Never approved (or withdrawn before it was): its hold is released next. */
export const PayoutCancelledV1 = eventData({ reason: text, cancelledAt: instant });
/** The provider took back a payout it had completed: the wallet is credited back next. */
export const PayoutReversedV1 = eventData({ reason: text, reversedAt: instant });
/** The wallet was credited back what the reversed payout took (payments.reversePayout). */
export const PayoutReversalCreditedV1 = eventData({ creditedAt: instant });

export const MONEY_OUT_EVENT_SCHEMAS = {
  [MONEY_OUT_EVENT_TYPES.requested]: MoneyOutRequestedV1,
  [MONEY_OUT_EVENT_TYPES.sent]: MoneyOutSentV1,
  [MONEY_OUT_EVENT_TYPES.unconfirmed]: MoneyOutUnconfirmedV1,
  [MONEY_OUT_EVENT_TYPES.completed]: MoneyOutCompletedV1,
  [MONEY_OUT_EVENT_TYPES.failed]: MoneyOutFailedV1,
  [MONEY_OUT_EVENT_TYPES.flagged]: MoneyOutFlaggedForAttentionV1,
  [MONEY_OUT_EVENT_TYPES.holdSettled]: MoneyOutHoldSettledV1,
  [MONEY_OUT_EVENT_TYPES.awaitingApproval]: PayoutAwaitingApprovalV1,
  [MONEY_OUT_EVENT_TYPES.approved]: PayoutApprovedV1,
  [MONEY_OUT_EVENT_TYPES.cancelled]: PayoutCancelledV1,
  [MONEY_OUT_EVENT_TYPES.reversed]: PayoutReversedV1,
  [MONEY_OUT_EVENT_TYPES.reversalCredited]: PayoutReversalCreditedV1,
};
export type MoneyOutEvent = EventsOf<typeof MONEY_OUT_EVENT_SCHEMAS>;

// ---- a collection's refund allocations ----

export const REFUND_ALLOCATION_EVENT_TYPES = {
  allocated: 'RefundAllocated',
  released: 'RefundAllocationReleased',
  refunded: 'RefundAllocationRefunded',
} as const;

/** Part of a completed collection set aside for one refund; the first one also records what was collected. */
export const RefundAllocatedV1 = eventData({
  internalReference: text,
  merchantId: text,
  currency,
  /** The collection's transaction amount: what the payer paid, the most its refunds may return together. */
  collectedAmount: positiveMinorUnits,
  refundReference: text,
  amount: positiveMinorUnits,
  allocatedAt: instant,
});
/** The refund was not made (its provider refused it, or the wallet could not hold it): the amount is refundable again. */
export const RefundAllocationReleasedV1 = eventData({ refundReference: text, releasedAt: instant });
/** The provider refunded it. */
export const RefundAllocationRefundedV1 = eventData({ refundReference: text, refundedAt: instant });

export const REFUND_ALLOCATION_EVENT_SCHEMAS = {
  [REFUND_ALLOCATION_EVENT_TYPES.allocated]: RefundAllocatedV1,
  [REFUND_ALLOCATION_EVENT_TYPES.released]: RefundAllocationReleasedV1,
  [REFUND_ALLOCATION_EVENT_TYPES.refunded]: RefundAllocationRefundedV1,
};
export type RefundAllocationEvent = EventsOf<typeof REFUND_ALLOCATION_EVENT_SCHEMAS>;

// ---- a merchant's payouts of one currency and UTC day, against its daily cap ----

export const PAYOUT_DAY_EVENT_TYPES = {
  counted: 'PayoutCounted',
  uncounted: 'PayoutUncounted',
} as const;

/** A payout counted in its merchant's day before any money is held (the first one also names the day). */
export const PayoutCountedV1 = eventData({
  merchantId: text,
  currency,
  /** The UTC day, YYYY-MM-DD. */
  day: text,
  payoutReference: text,
  amount: positiveMinorUnits,
  countedAt: instant,
});
/** The payout was not made (FAILED, CANCELLED, or the wallet could not hold it): it no longer counts. */
export const PayoutUncountedV1 = eventData({ payoutReference: text, uncountedAt: instant });

export const PAYOUT_DAY_EVENT_SCHEMAS = {
  [PAYOUT_DAY_EVENT_TYPES.counted]: PayoutCountedV1,
  [PAYOUT_DAY_EVENT_TYPES.uncounted]: PayoutUncountedV1,
};
export type PayoutDayEvent = EventsOf<typeof PAYOUT_DAY_EVENT_SCHEMAS>;
