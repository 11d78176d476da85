/**
 * What provider connectors and the services that use them agree on. The connectors library
 * normalises every provider's answer to these types, so no service parses a provider's body.
 */

/** A collection's state at its provider, normalised; PENDING until the payer has acted. */
export type ProviderOutcome =
  | { status: 'PENDING' }
  | { status: 'SUCCESSFUL'; providerTransactionId: string; maskedAccount?: string }
  | { status: 'FAILED'; reason: 'INSUFFICIENT_FUNDS' | 'DECLINED' | 'OTHER'; providerReason: string }
  | { status: 'CANCELLED'; reason: 'CUSTOMER_DECLINED' | 'EXPIRED'; providerReason: string };

/** Protocols of providers that collect from a payer; a provider catalogue entry's `connector` names one. */
export const COLLECT_PROTOCOLS = ['momo', 'card'] as const;
export type CollectProtocol = (typeof COLLECT_PROTOCOLS)[number];

/** Protocols of billers Paygate pays bills at; a biller catalogue entry's `connector` names one. */
export const BILL_PAYMENT_PROTOCOLS = ['biller'] as const;
export type BillPaymentProtocol = (typeof BILL_PAYMENT_PROTOCOLS)[number];

/** Every protocol a connector exists for. */
export const CONNECTOR_PROTOCOLS = [...COLLECT_PROTOCOLS, ...BILL_PAYMENT_PROTOCOLS] as const;
export type ConnectorProtocol = (typeof CONNECTOR_PROTOCOLS)[number];

export function isConnectorProtocol(value: unknown): value is ConnectorProtocol {
  return (CONNECTOR_PROTOCOLS as readonly unknown[]).includes(value);
}

export function isCollectProtocol(value: unknown): value is CollectProtocol {
  return (COLLECT_PROTOCOLS as readonly unknown[]).includes(value);
}

export function isBillPaymentProtocol(value: unknown): value is BillPaymentProtocol {
  return (BILL_PAYMENT_PROTOCOLS as readonly unknown[]).includes(value);
}

/**
 * One request for every collect protocol; each connector sends what its protocol needs
 * (a MoMo prompt needs the msisdn, a card checkout the return URL and expiry). The collection
 * process names it; the service adds where the provider answers (the connector port).
 */
export interface CollectRequest {
  /** Our reference for the collection: unique, and the same on a retry (initiate is idempotent per reference). */
  reference: string;
  /** In major units, as a decimal string (e.g. "81000", "10.50"). */
  amount: string;
  currency: string;
  /** The payer's number, digits only with the calling code; mobile money only. */
  msisdn?: string;
  description?: string;
  /** Shown to the payer with a mobile money prompt. */
  payerMessage: string;
  /** Kept on the payee's side of a mobile money transaction. */
  payeeNote: string;
  /** ISO 8601 time after which the payer can no longer pay. */
  expiresAt: string;
}

/** A PRN payment asked of a biller (the service payment process names it; the connector port sends it). */
export interface BillPaymentRequest {
  prn: string;
  /** Integer minor units; the biller refuses any amount or currency but the bill's. */
  amount: number;
  currency: string;
  /** The same key again is the same payment: the biller pays at most once per key and answers it again. */
  idempotencyKey: string;
  /** Our reference for the payment, kept by the biller with it. */
  reference: string;
}

/**
 * A refund or payout as its provider reports it. NOT_FOUND: the provider never registered the request
 * (send it again with the same reference). REVERSED: a completed payout the provider took back.
 */
export type MoneyOutOutcome =
  | { status: 'PENDING' }
  | { status: 'SUCCESSFUL'; providerTransactionId: string }
  | { status: 'FAILED'; providerReason: string }
  | { status: 'REVERSED'; providerReason: string }
  | { status: 'NOT_FOUND' };

/** The account holder behind a number, as the provider's name check answers. */
export type AccountHolder = { canReceive: true; name: string } | { canReceive: false };
