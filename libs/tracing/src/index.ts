export * from './spans';
export { startTracing, type StartedTracing } from './start-tracing';
