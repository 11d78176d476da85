import { ContractCommand, ContractQuery, serviceContract } from '../service-contract';

/** A merchant wallet in one currency; integer minor units. */
export interface WalletBalance {
  currency: string;
  /** Credits minus debits. */
  balance: number;
  /** balance minus the amounts on hold: what a new hold or payment may use. */
  available: number;
}

/** The PRN payment of a collect-for-payment collection, as the collection's record shows it. */
export interface ServicePaymentSummary {
  prn: string;
  status: 'PENDING' | 'COMPLETED' | 'FAILED';
  statusMessage: string;
  serviceName: string | null;
  /** Integer minor units of `currency`. */
  amount: number;
  currency: string;
  billerPaymentId: string | null;
}

export interface WalletBalancesQuery {
  merchantId: string;
}

/** What a wallet event did: a transfer moved money, a hold set some aside, or its end. */
export type WalletEntryKind =
  'collection_credit' | 'top_up' | 'hold' | 'hold_release' | 'hold_capture' | 'money_out_reversal';

/** One line of a wallet's statement (integer minor units): one wallet event, with the transfers it posted. */
export interface WalletEntry {
  kind: WalletEntryKind;
  currency: string;
  /** What the event changed: balance by the transfers to and from the wallet, available by those and the holds. */
  balanceChange: number;
  availableChange: number;
  holdId: string | null;
  /** A hold's purpose (FEE, PRN_PAYMENT, REFUND, PAYOUT, OTHER). */
  purpose: string | null;
  internalReference: string | null;
  transfers: { transferId: string; debitAccount: string; creditAccount: string; amount: number }[];
  at: string;
}

/** A page of a merchant's wallet statement, newest first, every currency or one. */
export interface WalletStatementQuery {
  merchantId: string;
  currency?: string;
  /** The entry the previous page ended at. */
  after?: WalletEntryPosition;
  limit: number;
}

export interface WalletEntryPosition {
  at: string;
  entryId: string;
}

export interface WalletStatementPage {
  entries: (WalletEntry & { entryId: string })[];
  next?: WalletEntryPosition;
}

export interface TopUpWalletCommand {
  merchantId: string;
  currency: string;
  /** Integer minor units, > 0. */
  amount: number;
  /** Makes a retried top-up the same top-up. */
  reference: string;
  /** An operator credit: who made it and why (required by a live deployment's admin API). Never a secret. */
  operator?: string;
  reason?: string;
}

/** Where a page of a merchant's service payments ended: the last payment's opening instant and reference. */
export interface ServicePaymentPosition {
  openedAt: string;
  internalReference: string;
}

/** A page of one merchant's service payments, newest first (the merchant dashboard). */
export interface ListServicePaymentsQuery {
  merchantId: string;
  limit: number;
  /** The payment the previous page ended at. */
  after?: ServicePaymentPosition;
}

/** A service payment as a merchant's list shows it: its summary, reference, and when it opened and last changed. */
export type ServicePaymentListing = ServicePaymentSummary & {
  internalReference: string;
  /** When the payment opened (the ServicePaymentOpened instant), ISO 8601. */
  openedAt: string;
  /** When it last changed, ISO 8601. */
  updatedAt?: string;
};

export interface ServicePaymentPage {
  payments: ServicePaymentListing[];
  /** Absent on the last page. */
  next?: ServicePaymentPosition;
}

export interface FindServicePaymentQuery {
  merchantId: string;
  internalReference: string;
}

/** Money out of a wallet: a refund to the customer of a collection, or a payout to a mobile money number. */
export type MoneyOutKind = 'REFUND' | 'PAYOUT';

/** Set aside `amount` (amount and fee) of the available balance for a refund or payout, before its provider is asked. */
export interface HoldMoneyOutCommand {
  merchantId: string;
  currency: string;
  kind: MoneyOutKind;
  /** The merchant's refund_reference or payout_reference: the same reference is the same hold. */
  reference: string;
  /** Integer minor units, > 0. */
  amount: number;
}

/** The provider's final word on a held refund or payout: PAID takes the held money out, NOT_PAID gives it back. */
export interface SettleMoneyOutCommand {
  merchantId: string;
  currency: string;
  kind: MoneyOutKind;
  reference: string;
  outcome: 'PAID' | 'NOT_PAID';
}

/** A provider took back a payout it had paid: the wallet is credited what the payout took. */
export interface ReversePayoutCommand {
  merchantId: string;
  currency: string;
  reference: string;
}

export class WalletBalances extends ContractQuery<WalletBalancesQuery, { balances: WalletBalance[] }> {}
export class WalletStatement extends ContractQuery<WalletStatementQuery, WalletStatementPage> {}
export class TopUpWallet extends ContractCommand<TopUpWalletCommand, { balance: WalletBalance }> {}
export class FindServicePayment extends ContractQuery<
  FindServicePaymentQuery,
  { servicePayment: ServicePaymentSummary | null }
> {}
export class ListServicePayments extends ContractQuery<ListServicePaymentsQuery, ServicePaymentPage> {}
export class HoldMoneyOut extends ContractCommand<HoldMoneyOutCommand, { balance: WalletBalance }> {}
export class SettleMoneyOut extends ContractCommand<SettleMoneyOutCommand, { balance: WalletBalance }> {}
export class ReversePayout extends ContractCommand<ReversePayoutCommand, { balance: WalletBalance }> {}

/**
 * The service-payments service's request-reply surface: the gateway's reads and top-ups, and the money-out holds the
 * disbursements context (served in the service-payments app too) asks of the wallet.
 */
export const PAYMENTS_SERVICE = serviceContract(
  'payments',
  { servedBy: 'service-payments', sentBy: ['api-gateway', 'service-payments'] },
  {
    'payments.walletBalances': WalletBalances,
    'payments.walletStatement': WalletStatement,
    'payments.topUp': TopUpWallet,
    'payments.findServicePayment': FindServicePayment,
    'payments.listServicePayments': ListServicePayments,
    'payments.holdMoneyOut': HoldMoneyOut,
    'payments.settleMoneyOut': SettleMoneyOut,
    'payments.reversePayout': ReversePayout,
  },
);

export type PaymentsContract = typeof PAYMENTS_SERVICE.messages;
