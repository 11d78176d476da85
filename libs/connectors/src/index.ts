export * from './port';
export { connectorsConfigFrom, readConnectorsConfig, type ConnectorsConfig } from './config';
export type { MomoConnectorConfig } from './momo/momo-api';
export type { CardConnectorConfig } from './card/card-connector';
export type { BillerConnectorConfig } from './biller/biller-connector';
export * from './registry';
export { PROVIDER_REQUESTS_METRIC, type ProviderCallOutcome, type ProviderOperation } from './observed';
