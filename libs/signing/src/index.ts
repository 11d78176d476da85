// The signature schemes live in the merchant package (packages/paygate-node), so what Paygate
// signs and what merchants verify are one code.
export {
  callbackSignature,
  checkStandardWebhook,
  collectionSignature,
  payoutSignature,
  refundSignature,
  standardWebhookHeaders,
  standardWebhookSignature,
  verifyCallbackSignature,
  verifyCollectionSignature,
  verifyPayoutSignature,
  verifyRefundSignature,
  verifyStandardWebhook,
  type CollectionSignatureFields,
  type PayoutSignatureFields,
  type RefundSignatureFields,
  type StandardWebhookFailure,
  type StandardWebhookHeaders,
  type VerifyStandardWebhookOptions,
} from 'paygate-node/signatures';
export * from './collection-signature';
