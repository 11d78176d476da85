import type { RebuildableReadModel } from '@paygate/analytics';
import { COLLECTION_STREAM_PREFIX } from '@paygate/contracts';
import { CollectionProjection } from './collection-projection';

/**
 * `collection_view` for `paygate projections rebuild`: the service's own projection, fed the
 * collection streams. It schedules timers in the rebuilt database too; they are not compared
 * (a live timer's fire time moves as it is polled), so the poll interval given here is moot.
 */
export const COLLECTIONS_READ_MODEL: RebuildableReadModel = {
  name: 'collections',
  streamPrefixes: [COLLECTION_STREAM_PREFIX],
  async open(target, store) {
    const projection = await CollectionProjection.open(target, store, 60_000);
    return (event) => projection.apply(event);
  },
  tables: [
    {
      table: 'collection_view',
      key: ['internal_reference'],
      derived: [
        'merchant_id',
        'merchant_reference',
        'status',
        'transaction_method',
        'provider_code',
        'created_at',
        'revision',
        'state',
      ],
    },
  ],
};
