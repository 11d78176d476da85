export * from '@paygate/logging';
export * from '@paygate/metrics';
// Code that imports these from the platform keeps working (the provider connectors until they
// move to libs/connectors); new code imports @paygate/config.
export { ConfigError, redactUrl } from '@paygate/config';
export * from './envelope';
export * from './tokens';
export * from './app-url';
export * from './infrastructure';
export { createHttpApp, type AppContext } from './http/create-http-app';
export type { Drain } from './http/drain';
export { PathPatterns } from './http/edge-answers';
export { listen } from './http/listen';
export { requestIdFrom, REQUEST_ID_HEADER } from './http/request-observability';
export { PrometheusMetrics } from './metrics/prometheus-metrics';
export { runApp, type RunOptions } from './run-app';
export * from './rate-limit';
