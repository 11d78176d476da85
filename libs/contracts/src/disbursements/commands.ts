import { ContractCommand, ContractQuery, serviceContract } from '../service-contract';
import type { CollectionStatus, TransactionMethod } from '../collections/vocabulary';

/** A refund or payout, as the merchant API shows it. */
export const MONEY_OUT_STATUSES = ['PENDING', 'COMPLETED', 'FAILED'] as const;
export type MoneyOutStatus = (typeof MONEY_OUT_STATUSES)[number];

/**
 * Why a money-out is still PENDING: `provider_processing` once its provider registered it (or before it was sent),
 * `provider_unconfirmed` while the provider has not said whether it did (a time-out or an ambiguous answer): the
 * reconciler asks it until it says.
 */
export const PENDING_REASONS = ['provider_processing', 'provider_unconfirmed'] as const;
export type PendingReason = (typeof PENDING_REASONS)[number];

/** A merchant's refund or payout reference: 1–64 of A-Z a-z 0-9 . _ : / - */
export const MONEY_OUT_REFERENCE_PATTERN = '^[A-Za-z0-9._:/-]{1,64}$';

/** The refund record of the merchant API; amounts in major units as on the wire. */
export interface RefundRecord {
  refund_reference: string;
  internal_reference: string;
  amount: number;
  currency: string;
  status: MoneyOutStatus;
  pending_reason: PendingReason | null;
  failure_reason: string | null;
  reason: string | null;
  /** A live deployment's refund (real money), or a test one's. */
  livemode: boolean;
  created_at: string;
  updated_at: string;
}

/** The collection a refund is asked of, as the gateway found it for the merchant (its record, minor units). */
export interface RefundedCollection {
  internalReference: string;
  merchantReference: string;
  status: CollectionStatus;
  transactionMethod: TransactionMethod;
  providerCode: string;
  currency: string;
  /** What the payer paid, integer minor units. */
  transactionAmount: number;
  /** The msisdn, or the masked card. */
  transactionAccount: string | null;
}

export interface RequestRefundCommand {
  merchantId: string;
  refundReference: string;
  collection: RefundedCollection;
  /** Integer minor units; absent: all that is left to refund. */
  amount?: number;
  reason?: string;
}

export interface FindRefundQuery {
  merchantId: string;
  refundReference: string;
}

/** Where a page of refunds ended: the last refund's creation instant and reference (newest first). */
export interface RefundPosition {
  createdAt: string;
  refundReference: string;
}

export interface ListRefundsQuery {
  merchantId: string;
  internalReference?: string;
  limit: number;
  after?: RefundPosition;
}

export interface RefundPage {
  refunds: RefundRecord[];
  next?: RefundPosition;
}

/** How much of a collection was refunded (COMPLETED refunds), integer minor units: the record's amount_refunded. */
export interface RefundedAmountQuery {
  merchantId: string;
  internalReference: string;
}

export class RequestRefund extends ContractCommand<RequestRefundCommand, { refund: RefundRecord; created: boolean }> {}
export class FindRefund extends ContractQuery<FindRefundQuery, { refund: RefundRecord | null }> {}
export class ListRefunds extends ContractQuery<ListRefundsQuery, RefundPage> {}
export class RefundedAmount extends ContractQuery<RefundedAmountQuery, { amountRefunded: number }> {}

/** The disbursements service's request-reply surface (gateway → disbursements, served in the service-payments app). */
export const DISBURSEMENTS_SERVICE = serviceContract(
  'disbursements',
  { servedBy: 'service-payments', sentBy: ['api-gateway'] },
  {
    'disbursements.requestRefund': RequestRefund,
    'disbursements.findRefund': FindRefund,
    'disbursements.listRefunds': ListRefunds,
    'disbursements.refundedAmount': RefundedAmount,
  },
);

export type DisbursementsContract = typeof DISBURSEMENTS_SERVICE.messages;
