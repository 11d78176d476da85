/**
 * Words of a collection that its API records, commands and integration events share, and the
 * name of its streams (`collection-<internal_reference>`), which analysts read. The collection's
 * domain events are the collections context's own (libs/collections/domain, events.ts).
 */
export const COLLECTION_STREAM_PREFIX = 'collection-';
export const collectionStream = (internalReference: string) => `${COLLECTION_STREAM_PREFIX}${internalReference}`;

/** `PG` and 24 characters of Crockford's base32 (docs/api.md, The acknowledgement). */
export const INTERNAL_REFERENCE_PATTERN = '^PG[0-9A-HJKMNP-TV-Z]{24}$';
export const MERCHANT_REFERENCE_PATTERN = '^[A-Za-z0-9._:/-]{1,64}$';

export const TRANSACTION_METHODS = ['MOBILE_MONEY', 'CARD'] as const;
export type TransactionMethod = (typeof TRANSACTION_METHODS)[number];
export const COLLECTION_STATUSES = ['PENDING', 'COMPLETED', 'FAILED', 'CANCELLED'] as const;
export type CollectionStatus = (typeof COLLECTION_STATUSES)[number];

export const COLLECTION_CANCELLATION_REASONS = [
  'CONFIRMATION_TIMEOUT',
  'PROVIDER_TIMEOUT',
  'CUSTOMER_DECLINED',
  'PRN_NOT_ELIGIBLE',
  'PRN_VALIDATION_TIMEOUT',
] as const;
export type CollectionCancellationReason = (typeof COLLECTION_CANCELLATION_REASONS)[number];
