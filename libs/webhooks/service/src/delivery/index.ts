export { CallbackSender, parseRetryAfter, RESPONSE_EXCERPT_BYTES, signedCallbackHeaders, USER_AGENT } from './callback-sender';
export { CallbackStream, STREAM_RETENTION_MS } from './callback-stream';
export type { StreamEntry } from './callback-stream';
export type { AttemptOutcome, CallbackRequest } from './callback-sender';
export { jittered } from './delivery-config';
export type { DeliveryConfig } from './delivery-config';
export { DeliveryStore } from './delivery-store';
export type {
  AttemptRecord,
  ClaimedDelivery,
  DeliveryQuery,
  DeliveryRecord,
  DeliveryState,
  DeliveryStoreConfig,
  NewDelivery,
  QueueStats,
} from './delivery-store';
export { reportQueue } from './queue-metrics';
export { DeliveryWorker } from './delivery-worker';
export type { DeliveryWorkerOptions } from './delivery-worker';
