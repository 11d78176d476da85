import { collectionTimeline, toCollectionDetails, type CollectionState } from '@paygate/collections-domain';
import {
  CommandRejectedError,
  type CollectionActivityQuery,
  type CollectionActivityRow,
  type CollectionPage,
  type CollectionTimelineEntry,
  type CollectionTimelineQuery,
  type FindCollectionQuery,
  type FoundCollection,
  type ListCollectionsQuery,
} from '@paygate/contracts';
import type { CollectionProjection } from './collection-projection';
import type { CollectionRuntime } from './collection-runs';
import type { ReferenceRegistry } from './reference-registry';

const notFound = () => new CommandRejectedError('not_found', 'transaction not found');

export interface CollectionQueriesDeps {
  collections: CollectionRuntime;
  references: ReferenceRegistry;
  projection: CollectionProjection;
}

/**
 * The collections service's read side: the projection first; the stream where the projection trails a write just made.
 */
export class CollectionQueries {
  constructor(private readonly deps: CollectionQueriesDeps) {}

  async find({ merchantId, internalReference, merchantReference }: FindCollectionQuery): Promise<FoundCollection> {
    const { projection, references } = this.deps;
    let state: CollectionState = null;
    if (internalReference !== undefined)
      state = await projection.findByInternalReference(merchantId, internalReference);
    else if (merchantReference !== undefined)
      state = await projection.findByMerchantReference(merchantId, merchantReference);
    const reference =
      internalReference ??
      (merchantReference && (await references.find(merchantId, merchantReference))?.internalReference);
    if (!state && reference) state = (await this.deps.collections.load(reference)).state;
    if (state?.initiated.merchantId !== merchantId) throw notFound();
    return { record: toCollectionDetails(state), redirectUrl: state.initiated.redirectUrl };
  }

  /** A page from the projection alone: a collection appears once the projection has caught up with it. */
  async list(query: ListCollectionsQuery): Promise<CollectionPage> {
    const { collections, next } = await this.deps.projection.list(query);
    return { records: collections.map(toCollectionDetails), ...(next && { next }) };
  }

  /** The authoritative state, straight from the stream (for the card return, right after a result). */
  async current(internalReference: string): Promise<FoundCollection & { merchantId: string }> {
    const { state } = await this.deps.collections.load(internalReference);
    if (!state) throw notFound();
    return {
      record: toCollectionDetails(state),
      redirectUrl: state.initiated.redirectUrl,
      merchantId: state.initiated.merchantId,
    };
  }

  /** The collection's own events, read from its stream: what happened, in order. */
  async timeline({
    merchantId,
    internalReference,
  }: CollectionTimelineQuery): Promise<{ entries: CollectionTimelineEntry[] }> {
    const { state, events } = await this.deps.collections.load(internalReference);
    if (state?.initiated.merchantId !== merchantId) throw notFound();
    return { entries: collectionTimeline(events) };
  }

  async activity(query: CollectionActivityQuery): Promise<{ rows: CollectionActivityRow[] }> {
    return { rows: await this.deps.projection.activity(query) };
  }
}
