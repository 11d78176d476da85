import { rebuild, type Collection } from '@paygate/collections-domain';
import { COLLECTION_STREAM_PREFIX, type CollectionEvent } from '@paygate/contracts';
import type { EventStore, RecordedEvent } from '@paygate/event-store';
import type { MerchantAccounts } from '@paygate/merchants';
import { callbackBody, collectionCallbackFor } from '@paygate/webhooks-domain';
import type { DeliveryStore } from './delivery';

/**
 * Turns collection events into scheduled deliveries. The webhook id derives from the event id,
 * so an event the broker delivers twice schedules one delivery; the stream revision orders the
 * callbacks of one transaction.
 */
export class CallbackProjector {
  constructor(
    private readonly store: EventStore,
    private readonly merchants: MerchantAccounts,
    private readonly deliveries: DeliveryStore,
  ) {}

  /** True when a delivery was scheduled. */
  async project(recorded: RecordedEvent): Promise<boolean> {
    if (!recorded.streamName.startsWith(COLLECTION_STREAM_PREFIX)) return false;
    // The payload needs the whole record: fold the stream up to this event.
    const events = (await this.store.readStream(recorded.streamName, { maxCount: recorded.revision + 1 })) as unknown as CollectionEvent[];
    const state = rebuild(events) as Collection | null;
    if (!state) return false;
    const message = collectionCallbackFor(recorded as unknown as CollectionEvent, state);
    if (!message) return false;
    const merchant = await this.merchants.get(state.initiated.merchantId);
    await this.deliveries.enqueue([
      {
        webhookId: `msg_${recorded.id}`,
        merchantId: state.initiated.merchantId,
        internalReference: state.initiated.internalReference,
        sequence: recorded.revision,
        eventName: message.event,
        targetUrl: merchant?.collectionCallbackUrl ?? null,
        body: callbackBody(message),
      },
    ]);
    return true;
  }
}
