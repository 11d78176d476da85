// The signature schemes live in the merchant package (packages/paygate-node), so what Paygate
// signs and what merchants verify are one code.
export {
  callbackSignature,
  checkStandardWebhook,
  collectionSignature,
  refundSignature,
  standardWebhookHeaders,
  standardWebhookSignature,
  verifyCallbackSignature,
  verifyCollectionSignature,
  verifyRefundSignature,
  verifyStandardWebhook,
  type CollectionSignatureFields,
  type RefundSignatureFields,
  type StandardWebhookFailure,
  type StandardWebhookHeaders,
  type VerifyStandardWebhookOptions,
} from 'paygate-node/signatures';
export * from './collection-signature';
