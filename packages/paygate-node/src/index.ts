export { createPaygateClient, type PaygateApi, type PaygateClientOptions } from './client';
export type { components, paths, webhooks } from './api-types';
export {
  constructEvent,
  WebhookVerificationError,
  type IncomingHeaders,
  type PaygateCallbackBody,
  type PaygateEvent,
  type PaygateEventType,
  type WebhookVerificationFailure,
} from './webhooks';
export {
  checkStandardWebhook,
  standardWebhookHeaders,
  standardWebhookSignature,
  verifyStandardWebhook,
  type StandardWebhookFailure,
  type StandardWebhookHeaders,
  type VerifyStandardWebhookOptions,
} from './standard-webhooks';
export {
  callbackSignature,
  collectionSignature,
  payoutSignature,
  refundSignature,
  verifyCallbackSignature,
  verifyCollectionSignature,
  verifyPayoutSignature,
  verifyRefundSignature,
  type CollectionSignatureFields,
  type PayoutSignatureFields,
  type RefundSignatureFields,
} from './hmac-signature';
