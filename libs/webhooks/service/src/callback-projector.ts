import {
  readCollectionIntegrationEvent,
  readDisbursementsIntegrationEvent,
  readPaymentsIntegrationEvent,
  type IntegrationEnvelope,
} from '@paygate/contracts';
import type { Merchant, MerchantAccounts } from '@paygate/merchants';
import {
  callbackBody,
  collectionCallbackFor,
  collectionCallbackOrder,
  isPayoutSettled,
  isRefundSettled,
  payoutCallbackFor,
  payoutCallbackOrder,
  payoutDeliveryKey,
  refundCallbackFor,
  refundCallbackOrder,
  servicePaymentCallbackFor,
  servicePaymentCallbackOrder,
} from '@paygate/webhooks-domain';
import type { DeliveryQueue, NewDelivery } from './delivery';

/** What a callback takes from the event that caused it, besides its data: the flow and the consumer's span. */
export type DeliveryFlow = Pick<NewDelivery, 'correlationId' | 'traceparent'>;

/** A changed callback URL reaches new deliveries within this long. */
const MERCHANT_CACHE_MS = 5_000;

/** A callback's webhook id derives from the published event's id: a redelivered event schedules nothing new. */
export const webhookIdFor = (eventId: string) => `msg_${eventId}`;

type CallbackUrls = Pick<Merchant, 'collectionCallbackUrl' | 'servicePaymentsCallbackUrl' | 'payoutsCallbackUrl'>;

/**
 * Turns the published events of the collections, payments and disbursements contexts into
 * scheduled deliveries: collection callbacks to the merchant's collection callback URL,
 * payment.completed and payment.failed to its service payments callback URL, refund.completed
 * and refund.failed to its collection callback URL, payout.completed, payout.failed and
 * payout.reversed to its payouts callback URL. Each event carries the whole record,
 * so nothing is read back from another context. The webhook id derives from the event id, so an
 * event the broker delivers twice schedules one delivery; CallbackOrder (libs/webhooks/domain)
 * orders the callbacks of one transaction across the streams. A page of events is scheduled in
 * one statement: a backlog drains a page per round trip, not an event.
 */
export class CallbackProjector {
  private readonly urlCache = new Map<string, { urls: CallbackUrls | null; until: number }>();

  constructor(
    private readonly merchants: Pick<MerchantAccounts, 'get'>,
    private readonly deliveries: Pick<DeliveryQueue, 'enqueue'>,
  ) {}

  /**
   * Schedules the callbacks of a page of published events, in their order; returns them. `flows`
   * (by position in the page) says whose flow and trace each callback continues.
   */
  async project(page: IntegrationEnvelope[], flows: readonly DeliveryFlow[] = []): Promise<NewDelivery[]> {
    const scheduled: NewDelivery[] = [];
    const seen = new Set<string>();
    for (const [index, published] of page.entries()) {
      const delivery =
        (await this.collectionDelivery(published)) ??
        (await this.servicePaymentDelivery(published)) ??
        (await this.refundDelivery(published)) ??
        (await this.payoutDelivery(published));
      // An event the broker handed over twice in one page is one delivery.
      if (delivery && !seen.has(delivery.webhookId)) {
        seen.add(delivery.webhookId);
        scheduled.push({ ...delivery, ...flows[index] });
      }
    }
    await this.deliveries.enqueue(scheduled);
    return scheduled;
  }

  private async collectionDelivery(published: IntegrationEnvelope): Promise<NewDelivery | null> {
    const event = readCollectionIntegrationEvent(published);
    const message = event && collectionCallbackFor(event);
    if (!event || !message) return null;
    const { collection } = event.data;
    return {
      webhookId: webhookIdFor(event.id),
      merchantId: collection.merchantId,
      internalReference: collection.internalReference,
      ...collectionCallbackOrder(event),
      eventName: message.event,
      targetUrl: (await this.callbackUrls(collection.merchantId))?.collectionCallbackUrl ?? null,
      body: callbackBody(message),
    };
  }

  private async servicePaymentDelivery(published: IntegrationEnvelope): Promise<NewDelivery | null> {
    const event = readPaymentsIntegrationEvent(published);
    const message = event && servicePaymentCallbackFor(event);
    if (!event || !message) return null;
    const { payment } = event.data;
    return {
      webhookId: webhookIdFor(event.id),
      merchantId: payment.merchantId,
      // The collection's: resend, the deliveries list and the order rule see one transaction.
      internalReference: payment.internalReference,
      ...servicePaymentCallbackOrder(event),
      eventName: message.event,
      targetUrl: (await this.callbackUrls(payment.merchantId))?.servicePaymentsCallbackUrl ?? null,
      body: callbackBody(message),
    };
  }

  private async refundDelivery(published: IntegrationEnvelope): Promise<NewDelivery | null> {
    const event = readDisbursementsIntegrationEvent(published);
    if (!event || !isRefundSettled(event)) return null;
    const message = refundCallbackFor(event);
    const { refund } = event.data;
    return {
      webhookId: webhookIdFor(event.id),
      merchantId: refund.merchantId,
      // The collection's: resend, the callback log and the order rule see the refund among its collection's callbacks.
      internalReference: refund.internalReference,
      ...refundCallbackOrder(),
      eventName: message.event,
      targetUrl: (await this.callbackUrls(refund.merchantId))?.collectionCallbackUrl ?? null,
      body: callbackBody(message),
    };
  }

  private async payoutDelivery(published: IntegrationEnvelope): Promise<NewDelivery | null> {
    const event = readDisbursementsIntegrationEvent(published);
    if (!event || !isPayoutSettled(event)) return null;
    const message = payoutCallbackFor(event);
    const { payout } = event.data;
    return {
      webhookId: webhookIdFor(event.id),
      merchantId: payout.merchantId,
      // A payout has no collection: its callbacks are filed, listed and ordered under a key of their own.
      internalReference: payoutDeliveryKey(payout.payoutReference),
      ...payoutCallbackOrder(event),
      eventName: message.event,
      targetUrl: (await this.callbackUrls(payout.merchantId))?.payoutsCallbackUrl ?? null,
      body: callbackBody(message),
    };
  }

  private async callbackUrls(merchantId: string): Promise<CallbackUrls | null> {
    const cached = this.urlCache.get(merchantId);
    if (cached && cached.until > Date.now()) return cached.urls;
    const merchant = await this.merchants.get(merchantId);
    const urls = merchant && {
      collectionCallbackUrl: merchant.collectionCallbackUrl,
      servicePaymentsCallbackUrl: merchant.servicePaymentsCallbackUrl,
      payoutsCallbackUrl: merchant.payoutsCallbackUrl,
    };
    if (this.urlCache.size > 10_000) this.urlCache.clear();
    this.urlCache.set(merchantId, { urls, until: Date.now() + MERCHANT_CACHE_MS });
    return urls;
  }
}
