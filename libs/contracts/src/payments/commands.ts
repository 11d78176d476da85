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
export type WalletEntryKind = 'collection_credit' | 'top_up' | 'hold' | 'hold_release' | 'hold_capture';

/** One line of a wallet's statement (integer minor units): one wallet event, with the transfers it posted. */
export interface WalletEntry {
  kind: WalletEntryKind;
  currency: string;
  /** What the event changed: balance by the transfers to and from the wallet, available by those and the holds. */
  balanceChange: number;
  availableChange: number;
  holdId: string | null;
  /** A hold's purpose (FEE, PRN_PAYMENT, OTHER). */
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

export class WalletBalances extends ContractQuery<WalletBalancesQuery, { balances: WalletBalance[] }> {}
export class WalletStatement extends ContractQuery<WalletStatementQuery, WalletStatementPage> {}
export class TopUpWallet extends ContractCommand<TopUpWalletCommand, { balance: WalletBalance }> {}
export class FindServicePayment extends ContractQuery<
  FindServicePaymentQuery,
  { servicePayment: ServicePaymentSummary | null }
> {}
export class ListServicePayments extends ContractQuery<ListServicePaymentsQuery, ServicePaymentPage> {}

/** The service-payments service's request-reply surface (gateway → service-payments). */
export const PAYMENTS_SERVICE = serviceContract(
  'payments',
  { servedBy: 'service-payments', sentBy: ['api-gateway'] },
  {
    'payments.walletBalances': WalletBalances,
    'payments.walletStatement': WalletStatement,
    'payments.topUp': TopUpWallet,
    'payments.findServicePayment': FindServicePayment,
    'payments.listServicePayments': ListServicePayments,
  },
);

export type PaymentsContract = typeof PAYMENTS_SERVICE.messages;
