import { readCollectionIntegrationEvent, type IntegrationEnvelope } from '@paygate/contracts';
import type { MerchantAccounts } from '@paygate/merchants';
import { callbackBody, collectionCallbackFor } from '@paygate/webhooks-domain';
import type { DeliveryStore } from './delivery';

/** A changed callback URL reaches new deliveries within this long. */
const MERCHANT_CACHE_MS = 5_000;

/**
 * Turns the collections context's published events into scheduled deliveries. Each event
 * carries the whole collection record, so nothing is read back from another context. The
 * webhook id derives from the event id, so an event the broker delivers twice schedules one
 * delivery; the stream revision orders the callbacks of one transaction.
 */
export class CallbackProjector {
  private readonly callbackUrls = new Map<string, { url: string | null; until: number }>();

  constructor(
    private readonly merchants: MerchantAccounts,
    private readonly deliveries: DeliveryStore,
  ) {}

  /** True when a delivery was scheduled. */
  async project(published: IntegrationEnvelope): Promise<boolean> {
    const event = readCollectionIntegrationEvent(published);
    const message = event && collectionCallbackFor(event);
    if (!event || !message) return false;
    const { collection } = event.data;
    await this.deliveries.enqueue([
      {
        webhookId: `msg_${event.id}`,
        merchantId: collection.merchantId,
        internalReference: collection.internalReference,
        sequence: event.revision,
        eventName: message.event,
        targetUrl: await this.callbackUrl(collection.merchantId),
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
