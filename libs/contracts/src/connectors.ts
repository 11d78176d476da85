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

/** The protocols a connector exists for; a catalogue entry's `connector` names one of them. */
export const CONNECTOR_PROTOCOLS = ['momo', 'card'] as const;
export type ConnectorProtocol = (typeof CONNECTOR_PROTOCOLS)[number];

export function isConnectorProtocol(value: unknown): value is ConnectorProtocol {
  return (CONNECTOR_PROTOCOLS as readonly unknown[]).includes(value);
}
