import { ContractCommand, ContractQuery, serviceContract } from '../service-contract';
import type { CollectionStatus, TransactionMethod } from '../collections/vocabulary';

/** A refund, as the merchant API shows it. */
export const MONEY_OUT_STATUSES = ['PENDING', 'COMPLETED', 'FAILED'] as const;
export type MoneyOutStatus = (typeof MONEY_OUT_STATUSES)[number];

/**
 * A payout, as the merchant API shows it: PENDING_APPROVAL above the merchant's approval threshold until an owner
 * approves it (CANCELLED when nobody does in time), REVERSED when its provider took back a completed one.
 */
export const PAYOUT_STATUSES = ['PENDING_APPROVAL', 'PENDING', 'COMPLETED', 'FAILED', 'REVERSED', 'CANCELLED'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

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

/** The payout record of the merchant API; amounts in major units as on the wire. */
export interface PayoutRecord {
  payout_reference: string;
  amount: number;
  /** Paygate's fee, taken from the wallet with the amount. */
  fee: number;
  currency: string;
  provider_code: string;
  msisdn: string;
  /** The account holder's name as the provider gave it at the name check. */
  recipient_name: string | null;
  status: PayoutStatus;
  pending_reason: PendingReason | null;
  /** FAILED, REVERSED: what the provider said; CANCELLED: why. */
  failure_reason: string | null;
  livemode: boolean;
  created_at: string;
  updated_at: string;
}

/** The name check of a mobile money number at a provider. */
export interface CheckRecipientQuery {
  providerCode: string;
  msisdn: string;
}

export interface RecipientCheck {
  providerCode: string;
  msisdn: string;
  canReceive: boolean;
  /** The account holder's name; null when the account cannot receive. */
  name: string | null;
}

/** The merchant's payout settings as the gateway has them, in the payout currency's minor units. */
export interface MerchantPayoutSettings {
  /** A payout above this waits for an owner's approval; null: none does. */
  approvalThreshold: number | null;
  /** The most its payouts (those not FAILED or CANCELLED) may total in a UTC day; null: no cap. */
  dailyCap: number | null;
}

export interface RequestPayoutCommand {
  merchantId: string;
  payoutReference: string;
  currency: string;
  /** Integer minor units. */
  amount: number;
  /** The provider paid through; its payout terms (limits, fee) are the catalogue's. */
  providerCode: string;
  msisdn: string;
  /** The name the merchant expects the account to have: checked against the provider's, case and spaces aside. */
  recipientName?: string;
  settings: MerchantPayoutSettings;
  /** The dashboard user asking (who may not approve it); absent through the API. */
  createdBy?: string;
}

export interface FindPayoutQuery {
  merchantId: string;
  payoutReference: string;
}

/** Where a page of payouts ended: the last payout's creation instant and reference (newest first). */
export interface PayoutPosition {
  createdAt: string;
  payoutReference: string;
}

export interface ListPayoutsQuery {
  merchantId: string;
  status?: PayoutStatus;
  providerCode?: string;
  /** created_at at or after this instant. */
  from?: string;
  /** created_at before this instant. */
  to?: string;
  limit: number;
  after?: PayoutPosition;
}

export interface PayoutPage {
  payouts: PayoutRecord[];
  next?: PayoutPosition;
}

/** An owner's approval of a payout waiting for one; `approverId` may not be the dashboard user who asked for it. */
export interface ApprovePayoutCommand {
  merchantId: string;
  payoutReference: string;
  approverId: string;
}

/** A refund or payout its provider has not confirmed for too long, as operators are shown it. */
export interface MoneyOutAttentionItem {
  kind: 'REFUND' | 'PAYOUT';
  merchant_id: string;
  reference: string;
  amount: number;
  currency: string;
  provider_code: string;
  status: string;
  pending_reason: PendingReason | null;
  sends: number;
  created_at: string;
  updated_at: string;
}

export interface ListMoneyOutAttentionQuery {
  limit: number;
  /** One merchant's (its dashboard); absent: every merchant's (operators). */
  merchantId?: string;
}

export interface ListPayoutApprovalsQuery {
  merchantId: string;
  limit: number;
}

/** A payout waiting for an owner's approval, and the dashboard user who asked for it (who may not approve it). */
export interface PayoutApproval {
  payout: PayoutRecord;
  /** Null when it came through the API. */
  createdBy: string | null;
}

export class RequestRefund extends ContractCommand<RequestRefundCommand, { refund: RefundRecord; created: boolean }> {}
export class FindRefund extends ContractQuery<FindRefundQuery, { refund: RefundRecord | null }> {}
export class ListRefunds extends ContractQuery<ListRefundsQuery, RefundPage> {}
export class RefundedAmount extends ContractQuery<RefundedAmountQuery, { amountRefunded: number }> {}

export class CheckRecipient extends ContractQuery<CheckRecipientQuery, { recipient: RecipientCheck }> {}
export class RequestPayout extends ContractCommand<RequestPayoutCommand, { payout: PayoutRecord; created: boolean }> {}
export class FindPayout extends ContractQuery<FindPayoutQuery, { payout: PayoutRecord | null }> {}
export class ListPayouts extends ContractQuery<ListPayoutsQuery, PayoutPage> {}
export class ApprovePayout extends ContractCommand<ApprovePayoutCommand, { payout: PayoutRecord }> {}
export class ListPayoutApprovals extends ContractQuery<ListPayoutApprovalsQuery, { waiting: PayoutApproval[] }> {}
export class ListMoneyOutAttention extends ContractQuery<
  ListMoneyOutAttentionQuery,
  { items: MoneyOutAttentionItem[] }
> {}

/** The disbursements service's request-reply surface (gateway → disbursements, served in the service-payments app). */
export const DISBURSEMENTS_SERVICE = serviceContract(
  'disbursements',
  { servedBy: 'service-payments', sentBy: ['api-gateway'] },
  {
    'disbursements.requestRefund': RequestRefund,
    'disbursements.findRefund': FindRefund,
    'disbursements.listRefunds': ListRefunds,
    'disbursements.refundedAmount': RefundedAmount,
    'disbursements.checkRecipient': CheckRecipient,
    'disbursements.requestPayout': RequestPayout,
    'disbursements.findPayout': FindPayout,
    'disbursements.listPayouts': ListPayouts,
    'disbursements.approvePayout': ApprovePayout,
    'disbursements.listPayoutApprovals': ListPayoutApprovals,
    'disbursements.listMoneyOutAttention': ListMoneyOutAttention,
  },
);

export type DisbursementsContract = typeof DISBURSEMENTS_SERVICE.messages;
