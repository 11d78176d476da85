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
