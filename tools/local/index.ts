export { ensureBuilt } from './ensure-built';
export { freePort } from '@paygate/net-guard';
export { KafkaBroker, type BrokerSettings } from './kafka-broker';
export { newCollectionReference, paidCollectionEvents, withPublished } from './paid-collection';
export { localCommandRoutes, type CommandRoutes as LocalCommandRoutes, type ServingApp } from './command-routes';
export { localCommandTlsDir, localCommandTlsEnv } from './command-tls';
export { collectionsOnSandbox, moneyOutOnSandbox } from './sandbox-providers';
export {
  addCounters,
  countersSince,
  noCounters,
  parseAppCounters,
  readAppCounters,
  statementsIn,
  type AppCounters,
} from './app-counters';
