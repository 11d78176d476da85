import {
  collectionDecider,
  evolve,
  timerChanges,
  type Collection,
  type CollectionTimerKind,
  type CollectionEvent,
} from '@paygate/collections-domain';
import { COLLECTION_STREAM_PREFIX } from '@paygate/contracts';
import type { EventStore } from '@paygate/event-store';
import { JOBS_MIGRATIONS } from '@paygate/jobs';
import { Projection, type StreamReadModel } from '@paygate/projections';
import { migrate, type SqlDatabase } from '@paygate/sql';
import { LeasedTimers } from '@paygate/timers';
import { COLLECTIONS_MIGRATIONS } from './migrations';

/** The collection timers, on the job queue (queue `collection_timers`, the table they had before). */
export const COLLECTION_TIMERS = new LeasedTimers<CollectionTimerKind>('collection_timers', {
  confirmation: true,
  provider: true,
  status: true,
});

/**
 * `collection_view`: one row per collection stream, the collection as GET /v1/collections answers it; the durable
 * timers go with it.
 */
export function collectionView(statusPollMs: number): StreamReadModel<CollectionEvent, Collection> {
  return {
    streamPrefix: COLLECTION_STREAM_PREFIX,
    read: collectionDecider.read,
    evolve,
    table: 'collection_view',
    key: (internalReference) => ({ internal_reference: internalReference }),
    columns: { merchant_id: 'text', merchant_reference: 'text', state: 'jsonb' },
    toColumns: (state) => ({
      merchant_id: state.initiated.merchantId,
      merchant_reference: state.initiated.merchantReference,
      state,
    }),
    fromColumns: (values) => values.state as Collection,
    async alongside(tx, changes) {
      await COLLECTION_TIMERS.apply(
        tx,
        changes.map(({ streamId, event }) => ({
          internalReference: streamId,
          changes: timerChanges(event, statusPollMs),
        })),
      );
    },
  };
}

/**
 * The collections context's projection (collection_view and its timers) and the reads GET /v1/collections makes of it.
 */
export class CollectionProjection extends Projection {
  static async open(sql: SqlDatabase, store: EventStore, statusPollMs: number): Promise<CollectionProjection> {
    // collections/0002 moves timers onto the job queue: the `jobs` table comes first.
    await migrate(sql, [...JOBS_MIGRATIONS, ...COLLECTIONS_MIGRATIONS]);
    return new CollectionProjection('collections-projection', [collectionView(statusPollMs)], sql, store);
  }

  async findByInternalReference(merchantId: string, internalReference: string): Promise<Collection | null> {
    const [row] = await this.sql.query<{ state: Collection }>(
      'select state from collection_view where internal_reference = $1 and merchant_id = $2',
      [internalReference, merchantId],
    );
    return row?.state ?? null;
  }

  async findByMerchantReference(merchantId: string, merchantReference: string): Promise<Collection | null> {
    const [row] = await this.sql.query<{ state: Collection }>(
      'select state from collection_view where merchant_id = $1 and merchant_reference = $2',
      [merchantId, merchantReference],
    );
    return row?.state ?? null;
  }
}
