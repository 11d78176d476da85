import type { RebuildableReadModel } from '@paygate/analytics';
import { SERVICE_PAYMENT_STREAM_PREFIX, WALLET_STREAM_PREFIX } from '@paygate/contracts';
import { PaymentsProjection } from './payments-projection';

/**
 * `wallet_balances` and `service_payment_view` for `paygate projections rebuild`: the service's
 * own projection, fed the service-payment and wallet streams (payment timers are written too,
 * not compared).
 */
export const PAYMENTS_READ_MODEL: RebuildableReadModel = {
  name: 'service payments',
  streamPrefixes: [SERVICE_PAYMENT_STREAM_PREFIX, WALLET_STREAM_PREFIX],
  async open(target, store) {
    const projection = await PaymentsProjection.open(target, store, 60_000);
    return (event) => projection.apply(event);
  },
  tables: [
    { table: 'wallet_balances', key: ['merchant_id', 'currency'], derived: ['balance', 'available', 'revision'] },
    {
      table: 'wallet_entries',
      key: ['merchant_id', 'currency', 'revision'],
      derived: [
        'kind',
        'balance_change',
        'available_change',
        'hold_id',
        'purpose',
        'internal_reference',
        'transfers',
        'at',
      ],
    },
    {
      table: 'service_payment_view',
      key: ['internal_reference'],
      derived: ['merchant_id', 'summary', 'state', 'opened_at', 'revision'],
    },
  ],
};
