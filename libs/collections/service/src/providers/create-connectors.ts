import { HttpCardConnector } from './card-connector';
import { HttpMobileMoneyConnector } from './momo-connector';
import { readProviderConnectorConfig, type CardConnector, type MobileMoneyConnector } from './provider-connectors';

/** The HTTP connectors, configured from the environment (see readProviderConnectorConfig). */
export function createProviderConnectors(env: Record<string, string | undefined>, selfUrl: string): { mobileMoney: MobileMoneyConnector; card: CardConnector } {
  const config = readProviderConnectorConfig(env, selfUrl);
  return { mobileMoney: new HttpMobileMoneyConnector(config.mobileMoney), card: new HttpCardConnector(config.card) };
}
