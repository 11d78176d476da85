// The signature schemes live in the merchant package (packages/paygate-node), so what Paygate
// signs and what merchants verify are one code.
export {
  checkStandardWebhook,
  collectionSignature,
  standardWebhookHeaders,
  standardWebhookSignature,
  verifyCollectionSignature,
  verifyStandardWebhook,
  type CollectionSignatureFields,
  type StandardWebhookFailure,
  type StandardWebhookHeaders,
  type VerifyStandardWebhookOptions,
} from 'paygate-node/signatures';
export * from './collection-signature';
