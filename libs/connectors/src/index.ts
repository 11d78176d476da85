export * from './port';
export { readConnectorsConfig, type ConnectorsConfig } from './config';
export type { MomoConnectorConfig } from './momo/momo-connector';
export type { CardConnectorConfig } from './card/card-connector';
export * from './registry';
