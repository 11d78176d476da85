export * from './event-store';
export { SqlEventStore, type SqlEventStoreOptions } from './sql/sql-event-store';
export { EVENT_STORE_MIGRATIONS } from './sql/migrations';
export { openEventStore } from './open-event-store';
export * from './decider-runtime';
export { instrumentEventStore } from './instrumented-event-store';
