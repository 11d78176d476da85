// Suites every adapter of a port runs against itself: event store, messaging, provider and biller connectors, job
// queue.
export * from './event-store-conformance';
export * from './messaging-conformance';
export * from './connector-conformance';
export * from './bill-payment-conformance';
export * from './job-queue-conformance';
