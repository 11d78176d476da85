/**
 * Words of a collection that its API records, commands and integration events share, and the
 * name of its streams (`collection-<internal_reference>`), which analysts read. The collection's
 * domain events are the collections context's own (libs/collections/domain, events.ts).
 */
export const COLLECTION_STREAM_PREFIX = 'collection-';
export const collectionStream = (internalReference: string) => `${COLLECTION_STREAM_PREFIX}${internalReference}`;

export type TransactionMethod = 'MOBILE_MONEY' | 'CARD';
export type CollectionStatus = 'PENDING' | 'COMPLETED' | 'FAILED' | 'CANCELLED';

export const COLLECTION_CANCELLATION_REASONS = [
  'CONFIRMATION_TIMEOUT',
  'PROVIDER_TIMEOUT',
  'CUSTOMER_DECLINED',
  'PRN_NOT_ELIGIBLE',
  'PRN_VALIDATION_TIMEOUT',
] as const;
export type CollectionCancellationReason = (typeof COLLECTION_CANCELLATION_REASONS)[number];
