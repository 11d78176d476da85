import type { CollectionCancellationReason, TransactionMethod } from '@paygate/contracts';

/**
 * Domain events of a collection, stream `collection-<internal_reference>`: the collections
 * context's own; other contexts see a collection only through its integration events
 * (libs/contracts). Every event carries `metadata.schemaVersion`; a new incompatible shape gets a
 * new version and both are kept here so analysts can replay old streams. Amounts are integer
 * minor units of `currency`. No secret and no full card number ever appears in these payloads.
 */
export const COLLECTION_EVENT_TYPES = {
  initiated: 'CollectionInitiated',
  confirmed: 'CollectionConfirmed',
  pinPromptSent: 'PinPromptSent',
  cardCheckoutOpened: 'CardCheckoutOpened',
  completed: 'CollectionCompleted',
  failed: 'CollectionFailed',
  cancelled: 'CollectionCancelled',
  /** Collect-for-payment: service-payments found the PRN eligible; the collection may proceed. */
  prnAccepted: 'PrnAccepted',
} as const;

export interface CollectionInitiatedV1 {
  id: number;
  merchantId: string;
  merchantReference: string;
  internalReference: string;
  transactionMethod: TransactionMethod;
  providerCode: string;
  institutionName: string;
  currency: string;
  requestAmount: number;
  transactionAmount: number;
  fee: number;
  totalCredit: number;
  chargeCustomer: boolean;
  requireConfirmation: boolean;
  msisdn?: string;
  customerName: string;
  customerEmail?: string;
  description?: string;
  redirectUrl?: string;
  /** Collect-for-payment: the PRN to pay from the collected funds; the collection waits for its verdict. */
  prn?: string;
  /** SHA-256 of the normalised request: a retry with the same body replays, another body conflicts. */
  requestHash: string;
  initiatedAt: string;
  /** Unconfirmed after this instant → CANCELLED (absent when require_confirmation=false). */
  confirmationExpiresAt?: string;
}

export interface CollectionConfirmedV1 {
  internalReference: string;
  confirmedAt: string;
  /** True when require_confirmation=false made initialize confirm it. */
  implicit: boolean;
  /** No provider result by this instant → CANCELLED (prompt or checkout time-out). */
  providerExpiresAt: string;
}

export interface PinPromptSentV1 {
  internalReference: string;
  /** The X-Reference-Id of the provider's requesttopay. */
  providerReference: string;
  sentAt: string;
}

export interface CardCheckoutOpenedV1 {
  internalReference: string;
  providerReference: string;
  paymentUrl: string;
  openedAt: string;
}

export interface CollectionCompletedV1 {
  internalReference: string;
  providerTransactionId: string;
  /** The msisdn, or a masked card such as 424242******4242. */
  transactionAccount: string;
  statusMessage: string;
  completedAt: string;
}

export type CollectionFailureReason = 'INSUFFICIENT_FUNDS' | 'DECLINED' | 'PROVIDER_ERROR';

export interface CollectionFailedV1 {
  internalReference: string;
  reason: CollectionFailureReason;
  statusMessage: string;
  failedAt: string;
}

export interface CollectionCancelledV1 {
  internalReference: string;
  reason: CollectionCancellationReason;
  statusMessage: string;
  cancelledAt: string;
}

export interface PrnAcceptedV1 {
  internalReference: string;
  acceptedAt: string;
}

export type CollectionEvent =
  | { type: typeof COLLECTION_EVENT_TYPES.initiated; data: CollectionInitiatedV1 }
  | { type: typeof COLLECTION_EVENT_TYPES.confirmed; data: CollectionConfirmedV1 }
  | { type: typeof COLLECTION_EVENT_TYPES.pinPromptSent; data: PinPromptSentV1 }
  | { type: typeof COLLECTION_EVENT_TYPES.cardCheckoutOpened; data: CardCheckoutOpenedV1 }
  | { type: typeof COLLECTION_EVENT_TYPES.completed; data: CollectionCompletedV1 }
  | { type: typeof COLLECTION_EVENT_TYPES.failed; data: CollectionFailedV1 }
  | { type: typeof COLLECTION_EVENT_TYPES.cancelled; data: CollectionCancelledV1 }
  | { type: typeof COLLECTION_EVENT_TYPES.prnAccepted; data: PrnAcceptedV1 };

export const COLLECTION_EVENT_SCHEMA_VERSION = 1;
