export {
  CallbackSender,
  parseRetryAfter,
  RESPONSE_EXCERPT_BYTES,
  signedCallbackHeaders,
  USER_AGENT,
} from './callback-sender';
export { CallbackStream, STREAM_RETENTION_MS } from './callback-stream';
export type { StreamEntry } from './callback-stream';
export type { AttemptOutcome, CallbackRequest } from './callback-sender';
export { jittered } from './delivery-config';
export type { DeliveryConfig } from './delivery-config';
export { DeliveryHistory } from './delivery-history';
export type { AttemptRecord, DeliveryQuery, DeliveryRecord, DeliveryState } from './delivery-history';
export { DeliveryQueue } from './delivery-queue';
export type { ClaimedDelivery, DeliveryQueueConfig, NewDelivery, OutgoingCallback } from './delivery-queue';
export { reportQueue } from './queue-metrics';
export type { QueueStats } from './queue-metrics';
export { DeliveryWorker, NO_SIGNING_KEY } from './delivery-worker';
export type { DeliveryWorkerOptions } from './delivery-worker';
export { NO_COLLECTION_CALLBACK_URL, TestCallbacks } from './test-callbacks';
export type { TestCallbacksDeps } from './test-callbacks';
