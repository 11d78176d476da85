import { ContractCommand, ContractQuery, serviceContract } from '../service-contract';
import type { CollectionStatus, TransactionMethod } from './vocabulary';

/** An initialize body after shape validation, with defaults applied; field names as on the wire. */
export interface CollectionRequest {
  merchant_reference: string;
  transaction_method: TransactionMethod;
  provider_code: string;
  currency: string;
  /** As the merchant sent it (major units); converted to minor units exactly by the domain. */
  amount: number;
  msisdn?: string;
  customer_name: string;
  customer_email?: string;
  description?: string;
  charge_customer: boolean;
  require_confirmation: boolean;
  redirect_url?: string;
  /** Collect-for-payment: the PRN the collected funds pay (digits). */
  prn?: string;
}

export interface InitializeCollectionCommand {
  merchantId: string;
  request: CollectionRequest;
}

export interface ConfirmCollectionCommand {
  merchantId: string;
  internalReference: string;
}

/** Exactly one of the two references. */
export interface FindCollectionQuery {
  merchantId: string;
  internalReference?: string;
  merchantReference?: string;
}

/** Where a page of collections ends: the next page starts after this one (newest first). */
export interface CollectionPosition {
  createdAt: string;
  internalReference: string;
}

/** A page of a merchant's collections, newest first, each filter optional. */
export interface ListCollectionsQuery {
  merchantId: string;
  status?: CollectionStatus;
  method?: TransactionMethod;
  providerCode?: string;
  /** ISO 8601 instants: created at or after `createdFrom`, before `createdTo`. */
  createdFrom?: string;
  createdTo?: string;
  after?: CollectionPosition;
  limit: number;
}

export interface CollectionPage {
  records: CollectionDetails[];
  /** Absent on the last page. */
  next?: CollectionPosition;
}

/** What the merchant is told when a command is accepted: the message and the envelope's data. */
export interface Acknowledgement {
  message: string;
  data: Record<string, unknown>;
}

export interface CurrentCollectionQuery {
  internalReference: string;
}

export interface FoundCollection {
  record: CollectionDetails;
  redirectUrl?: string;
}

/** The transaction record of the merchant API (docs/api.md, The acknowledgement); amounts in major units. */
export interface CollectionRecord {
  id: number;
  merchant_reference: string;
  internal_reference: string;
  transaction_type: 'COLLECTION';
  request_currency: string;
  request_amount: number;
  transaction_currency: string;
  transaction_amount: number;
  transaction_fee: number;
  charge_customer: boolean;
  total_credit: number;
  provider_code: string;
  transaction_status: CollectionStatus;
  status_message: string;
  payment_url?: string;
  /** Opened by a live deployment (real money); false for test data, and for collections from before MODE. */
  livemode: boolean;
}

/** The record as GET /v1/collections/{internal_reference} shows it. */
export interface CollectionDetails extends CollectionRecord {
  transaction_method: TransactionMethod;
  transaction_account: string | null;
  customer_name: string;
  /** Collect-for-payment: the PRN the collection pays. */
  prn?: string;
  created_at: string;
  updated_at: string;
}

/** The merchant's collections since `since` (an ISO 8601 instant), counted by UTC day, status and currency. */
export interface CollectionActivityQuery {
  merchantId: string;
  since: string;
}

export interface CollectionActivityRow {
  /** YYYY-MM-DD, UTC. */
  day: string;
  status: CollectionStatus;
  currency: string;
  count: number;
  /** The requested amounts' sum, integer minor units of `currency`. */
  amount: number;
}

/** What happened to a collection, one entry per event of its stream, oldest first. */
export interface CollectionTimelineQuery {
  merchantId: string;
  internalReference: string;
}

export interface CollectionTimelineEntry {
  /** The event's name, as a person reads it ("Collection completed"). */
  event: string;
  /** When it happened (the instant the event records). */
  at: string;
  /** The event's particulars in a line; empty when its name says it all. */
  detail: string;
}

export class InitializeCollection extends ContractCommand<InitializeCollectionCommand, Acknowledgement> {}
export class ConfirmCollection extends ContractCommand<ConfirmCollectionCommand, Acknowledgement> {}
/** Initialize with `request.prn`: the collection waits for service-payments' PRN verdict. */
export class CollectForPayment extends ContractCommand<InitializeCollectionCommand, Acknowledgement> {}
export class FindCollection extends ContractQuery<FindCollectionQuery, FoundCollection> {}
export class ListCollections extends ContractQuery<ListCollectionsQuery, CollectionPage> {}
/** The authoritative state by internal reference alone (the card return page, before the redirect). */
export class CurrentCollection extends ContractQuery<
  CurrentCollectionQuery,
  FoundCollection & { merchantId: string }
> {}

export class CollectionActivity extends ContractQuery<CollectionActivityQuery, { rows: CollectionActivityRow[] }> {}
export class CollectionTimeline extends ContractQuery<
  CollectionTimelineQuery,
  { entries: CollectionTimelineEntry[] }
> {}

/** The collections service's request-reply surface (gateway → collections). */
export const COLLECTIONS_SERVICE = serviceContract(
  'collections',
  { servedBy: 'collections', sentBy: ['api-gateway'] },
  {
    'collections.initialize': InitializeCollection,
    'collections.confirm': ConfirmCollection,
    'collections.collectForPayment': CollectForPayment,
    'collections.find': FindCollection,
    'collections.list': ListCollections,
    'collections.current': CurrentCollection,
    'collections.activity': CollectionActivity,
    'collections.timeline': CollectionTimeline,
  },
);

export type CollectionsContract = typeof COLLECTIONS_SERVICE.messages;
