export { ensureBuilt } from './ensure-built';
export { freePort } from './free-port';
export { KafkaBroker, type BrokerSettings } from './kafka-broker';
export { newCollectionReference, paidCollectionEvents, withPublished } from './paid-collection';
