import type { RebuildableReadModel } from '@paygate/analytics';
import { CONFIG_SCHEMA, readSetting } from '@paygate/config';
import {
  COLLECTIONS_PUBLICATION,
  DISBURSEMENTS_PUBLICATION,
  PAYMENTS_PUBLICATION,
  publishingContext,
} from '@paygate/contracts';
import { integrationEnvelope } from '@paygate/messaging';
import { CallbackProjector } from './callback-projector';
import { DeliveryQueue } from './delivery';

const PUBLICATIONS = [COLLECTIONS_PUBLICATION, PAYMENTS_PUBLICATION, DISBURSEMENTS_PUBLICATION];
const CONTEXTS = new Set(PUBLICATIONS.map((publication) => publication.context));

/**
 * The part of `webhook_deliveries` that follows from events, for `paygate projections rebuild`:
 * which callbacks exist (ids derive from the published events), for whom, in what order, with
 * what body. Where each is sent, its state and attempts depend on the merchant's current
 * settings and on the receivers, so the rebuild gives no target (it sends nothing) and they
 * are not compared.
 */
export const DELIVERIES_READ_MODEL: RebuildableReadModel = {
  name: 'callback deliveries',
  streamPrefixes: PUBLICATIONS.flatMap((publication) => publication.streamPrefixes),
  async open(target) {
    const queue = await DeliveryQueue.open(target, {
      timeoutMs: readSetting(CONFIG_SCHEMA.delivery.timeoutMs, {}),
      retrySchedule: readSetting(CONFIG_SCHEMA.delivery.retrySchedule, {}),
      perHostConcurrency: readSetting(CONFIG_SCHEMA.delivery.perHostConcurrency, {}),
      streamUnsent: false,
    });
    const projector = new CallbackProjector({ get: async () => null }, queue);
    return async (event) => {
      // The dispatcher consumes the contexts' integration events only, as here.
      if (CONTEXTS.has(publishingContext(event.type) ?? '')) await projector.project([integrationEnvelope(event)]);
    };
  },
  tables: [
    {
      table: 'webhook_deliveries',
      key: ['webhook_id'],
      derived: ['merchant_id', 'internal_reference', 'sequence', 'event_name', 'awaits', 'body'],
    },
  ],
};
