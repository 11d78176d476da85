import type { RebuildableReadModel } from '@paygate/analytics';
import { PAYOUT_STREAM_PREFIX, REFUND_STREAM_PREFIX } from '@paygate/contracts';
import { DisbursementsProjection } from './disbursements-projection';

/**
 * `money_out_view` for `paygate projections rebuild`: the service's own projection, fed the refund and payout streams
 * (the money-out timers are written too, not compared).
 */
export const DISBURSEMENTS_READ_MODEL: RebuildableReadModel = {
  name: 'money out',
  streamPrefixes: [REFUND_STREAM_PREFIX, PAYOUT_STREAM_PREFIX],
  async open(target, store) {
    const projection = await DisbursementsProjection.open(target, store, 60_000);
    return (event) => projection.apply(event);
  },
  tables: [
    {
      table: 'money_out_view',
      key: ['stream_id'],
      derived: [
        'merchant_id',
        'kind',
        'reference',
        'internal_reference',
        'status',
        'needs_attention',
        'amount',
        'provider_code',
        'currency',
        'created_at',
        'state',
        'revision',
      ],
    },
  ],
};
