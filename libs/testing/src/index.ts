export * from './services';
export * from './wait';
export * from './event-store-conformance';
export * from './messaging-conformance';
export * from './paygate-client';
export * from './collection-outcomes';
export * from './callback-receiver';
export * from './connector-conformance';
