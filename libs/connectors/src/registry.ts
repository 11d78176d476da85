import { CONNECTOR_PROTOCOLS, type ConnectorProtocol, type TransactionMethod } from '@paygate/contracts';
import { billerConnector } from './biller/biller-connector';
import { cardConnector } from './card/card-connector';
import { connectorsConfigFrom, readConnectorsConfig, type ConnectorsConfig } from './config';
import type { Config } from '@paygate/config';
import type { Metrics } from '@paygate/metrics';
import { momoConnector } from './momo/momo-connector';
import { observedConnector } from './observed';
import type { Capability, Connector, ConnectorWith } from './port';

/** What the registry reads of a catalogue entry (a collections catalogue Provider or a Biller is one). */
export interface ConnectorCatalogueEntry {
  /** provider_code, or a biller's biller_code */
  code: string;
  /** transaction_method: decides the protocol when the entry names none. */
  method?: TransactionMethod;
  /** The entry's `connector` field. */
  connector?: ConnectorProtocol;
}

const PROTOCOL_BY_METHOD: Record<TransactionMethod, ConnectorProtocol> = { MOBILE_MONEY: 'momo', CARD: 'card' };

/** Adding a protocol to CONNECTOR_PROTOCOLS (libs/contracts) requires a factory here. */
const FACTORIES: Record<ConnectorProtocol, (config: ConnectorsConfig) => Connector> = {
  momo: (config) => momoConnector(config.momo),
  card: (config) => cardConnector(config.card),
  biller: (config) => billerConnector(config.biller),
};

export class UnknownProviderError extends Error {
  override readonly name = 'UnknownProviderError';
  constructor(readonly providerCode: string) {
    super(`no connector is configured for provider_code ${JSON.stringify(providerCode)}`);
  }
}

export class MissingCapabilityError extends Error {
  override readonly name = 'MissingCapabilityError';
  constructor(
    readonly providerCode: string,
    readonly capability: Capability,
  ) {
    super(`the connector for provider_code ${JSON.stringify(providerCode)} offers no ${capability}`);
  }
}

/** The connector of each provider_code, built once from the catalogue and connector configuration. */
export class ConnectorRegistry {
  private constructor(private readonly connectors: ReadonlyMap<string, Connector>) {}

  /** One connector per protocol, shared by the provider codes that speak it (one MoMo token cache). */
  static fromCatalogue(entries: Iterable<ConnectorCatalogueEntry>, config: ConnectorsConfig): ConnectorRegistry {
    const byProtocol = new Map<ConnectorProtocol, Connector>();
    const byProvider = new Map<string, Connector>();
    for (const entry of entries) {
      const protocol = entry.connector ?? (entry.method && PROTOCOL_BY_METHOD[entry.method]);
      // The catalogue is checked when parsed; entries from elsewhere may still name anything.
      if (!protocol || !Object.hasOwn(FACTORIES, protocol)) {
        throw new Error(
          `provider_code ${JSON.stringify(entry.code)} needs a connector: one of ${CONNECTOR_PROTOCOLS.join(', ')}, or a transaction_method`,
        );
      }
      // Provider and biller catalogues are separate files: one code in both would be ambiguous.
      if (byProvider.has(entry.code)) throw new Error(`provider_code ${JSON.stringify(entry.code)} appears twice`);
      let connector = byProtocol.get(protocol);
      if (!connector) byProtocol.set(protocol, (connector = FACTORIES[protocol](config)));
      byProvider.set(entry.code, connector);
    }
    return new ConnectorRegistry(byProvider);
  }

  /**
   * This registry with every provider request timed by provider_code and operation (observed.ts): what the services
   * use. Each code gets its own instruments over the shared connector, which keeps its one token cache.
   */
  observedBy(metrics: Metrics): ConnectorRegistry {
    return new ConnectorRegistry(
      new Map([...this.connectors].map(([code, connector]) => [code, observedConnector(connector, code, metrics)])),
    );
  }

  get(providerCode: string): Connector;
  get<C extends Capability>(providerCode: string, capability: C): ConnectorWith<C>;
  get(providerCode: string, capability?: Capability): Connector {
    const connector = this.connectors.get(providerCode);
    if (!connector) throw new UnknownProviderError(providerCode);
    if (capability && !connector[capability]) throw new MissingCapabilityError(providerCode, capability);
    return connector;
  }

  has(providerCode: string): boolean {
    return this.connectors.has(providerCode);
  }

  providerCodes(): string[] {
    return [...this.connectors.keys()];
  }
}

/** The registry for a catalogue, its connectors configured by the one configuration and their requests timed. */
export function connectorRegistryFor(
  entries: Iterable<ConnectorCatalogueEntry>,
  section: Config['connectors'],
  selfUrl: string,
  metrics: Metrics,
): ConnectorRegistry {
  return ConnectorRegistry.fromCatalogue(entries, connectorsConfigFrom(section, selfUrl)).observedBy(metrics);
}

/** The registry for a catalogue, its connectors configured from `env` (see readConnectorsConfig). */
export function createConnectorRegistry(
  entries: Iterable<ConnectorCatalogueEntry>,
  env: Record<string, string | undefined>,
  selfUrl: string,
): ConnectorRegistry {
  return ConnectorRegistry.fromCatalogue(entries, readConnectorsConfig(env, selfUrl));
}
