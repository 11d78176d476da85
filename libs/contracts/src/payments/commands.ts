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

export interface TopUpWalletCommand {
  merchantId: string;
  currency: string;
  /** Integer minor units, > 0. */
  amount: number;
  /** Makes a retried top-up the same top-up. */
  reference: string;
}

export interface FindServicePaymentQuery {
  merchantId: string;
  internalReference: string;
}

export class WalletBalances extends ContractQuery<WalletBalancesQuery, { balances: WalletBalance[] }> {}
export class TopUpWallet extends ContractCommand<TopUpWalletCommand, { balance: WalletBalance }> {}
export class FindServicePayment extends ContractQuery<
  FindServicePaymentQuery,
  { servicePayment: ServicePaymentSummary | null }
> {}

/** The service-payments service's request-reply surface (gateway and sandbox → service-payments). */
export const PAYMENTS_SERVICE = serviceContract('payments', {
  'payments.walletBalances': WalletBalances,
  'payments.topUp': TopUpWallet,
  'payments.findServicePayment': FindServicePayment,
});

export type PaymentsContract = typeof PAYMENTS_SERVICE.messages;
