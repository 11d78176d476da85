import { rebuild, type Collection } from '@paygate/collections-domain';
import { COLLECTION_EVENT_TYPES as EVENTS, COLLECTION_STREAM_PREFIX, type CollectionEvent } from '@paygate/contracts';
import type { EventStore, RecordedEvent } from '@paygate/event-store';
import type { MerchantAccounts } from '@paygate/merchants';
import { callbackBody, collectionCallbackFor } from '@paygate/webhooks-domain';
import type { DeliveryStore } from './delivery';

/** Events that may become a callback; the others (confirmation, prompt, checkout) cost nothing. */
const CALLBACK_CAUSES = new Set<string>([EVENTS.initiated, EVENTS.completed, EVENTS.failed, EVENTS.cancelled]);

/** A changed callback URL reaches new deliveries within this long. */
const MERCHANT_CACHE_MS = 5_000;

/**
 * Turns collection events into scheduled deliveries. The webhook id derives from the event id,
 * so an event the broker delivers twice schedules one delivery; the stream revision orders the
 * callbacks of one transaction.
 */
export class CallbackProjector {
  private readonly callbackUrls = new Map<string, { url: string | null; until: number }>();

  constructor(
    private readonly store: EventStore,
    private readonly merchants: MerchantAccounts,
    private readonly deliveries: DeliveryStore,
  ) {}

  /** True when a delivery was scheduled. */
  async project(recorded: RecordedEvent): Promise<boolean> {
    if (!recorded.streamName.startsWith(COLLECTION_STREAM_PREFIX) || !CALLBACK_CAUSES.has(recorded.type)) return false;
    const event = recorded as unknown as CollectionEvent;
    if (event.type === EVENTS.initiated && !event.data.requireConfirmation) return false;
    // The payload needs the whole record: the first event is the whole stream so far, later
    // ones fold the stream up to themselves.
    const events = recorded.revision === 0 ? [event] : ((await this.store.readStream(recorded.streamName, { maxCount: recorded.revision + 1 })) as unknown as CollectionEvent[]);
    const state = rebuild(events) as Collection | null;
    const message = state && collectionCallbackFor(event, state);
    if (!state || !message) return false;
    await this.deliveries.enqueue([
      {
        webhookId: `msg_${recorded.id}`,
        merchantId: state.initiated.merchantId,
        internalReference: state.initiated.internalReference,
        sequence: recorded.revision,
        eventName: message.event,
        targetUrl: await this.callbackUrl(state.initiated.merchantId),
        body: callbackBody(message),
      },
    ]);
    return true;
  }

  private async callbackUrl(merchantId: string): Promise<string | null> {
    const cached = this.callbackUrls.get(merchantId);
    if (cached && cached.until > Date.now()) return cached.url;
    const url = (await this.merchants.get(merchantId))?.collectionCallbackUrl ?? null;
    if (this.callbackUrls.size > 10_000) this.callbackUrls.clear();
    this.callbackUrls.set(merchantId, { url, until: Date.now() + MERCHANT_CACHE_MS });
    return url;
  }
}
