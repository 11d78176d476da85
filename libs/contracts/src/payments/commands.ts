import { serviceRef, type MessageSpec } from '../service-contract';

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

/** The service-payments service's request-reply surface (gateway and sandbox → service-payments). */
export type PaymentsContract = {
  'payments.walletBalances': MessageSpec<WalletBalancesQuery, { balances: WalletBalance[] }> & { kind: 'query' };
  'payments.topUp': MessageSpec<TopUpWalletCommand, { balance: WalletBalance }> & { kind: 'command' };
  'payments.findServicePayment': MessageSpec<FindServicePaymentQuery, { servicePayment: ServicePaymentSummary | null }> & { kind: 'query' };
};

export const PAYMENTS_SERVICE = serviceRef<PaymentsContract>('payments');
