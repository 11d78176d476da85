/**
 * The callback projector's refund callbacks on the real delivery queue (setup in
 * delivery/delivery-worker-test-setup.ts): refund.completed and refund.failed go to the collection
 * callback URL, signed over the refund's fields, after the collection's transaction.completed
 * whatever order their events arrive in, independent of the collection's other refunds,
 * deduplicated by event id and covered by resend.
 */
import { randomUUID } from 'node:crypto';
import {
  COLLECTION_INTEGRATION_EVENTS as COLLECTIONS,
  DISBURSEMENTS_INTEGRATION_EVENTS as DISBURSEMENTS,
  type IntegrationEnvelope,
  type PublishedRefundV1,
} from '@paygate/contracts';
import type { Merchant } from '@paygate/merchants';
import { refundSignature, verifyStandardWebhook } from '@paygate/signing';
import { eventually, publishedCollection, publishedRefund } from '@paygate/testing';
import { CallbackProjector } from './callback-projector';
import { describeDeliveryScenarios, flat, KEY } from './delivery/delivery-worker-test-setup';

const MERCHANT = 'merchant-1';
const at = '2026-01-01T00:00:00.000Z';

function merchants(collectionCallbackUrl: string | null, servicePaymentsCallbackUrl: string | null) {
  const merchant: Merchant = {
    id: MERCHANT,
    name: 'Shop',
    status: 'active',
    publicKey: 'pk',
    collectionCallbackUrl,
    servicePaymentsCallbackUrl,
    payoutApprovalThreshold: 5_000_000,
    payoutDailyCap: null,
    payoutsCallbackUrl: null,
    createdAt: at,
    updatedAt: at,
  };
  return { get: async (id: string) => (id === MERCHANT ? merchant : null) };
}

/** A completed collection and refunds of it, as the broker hands their published events over. */
function refundedCollection() {
  const ref = `PG${randomUUID().replaceAll('-', '').slice(0, 24).toUpperCase()}`;
  const record = publishedCollection({
    merchantId: MERCHANT,
    merchantReference: `order-${ref}`,
    internalReference: ref,
    requireConfirmation: false,
    status: 'COMPLETED',
    statusMessage: 'Transaction completed successfully',
  });
  const completed: IntegrationEnvelope = {
    id: randomUUID(),
    type: COLLECTIONS.settled,
    version: 1,
    streamName: `collection-${ref}`,
    revision: 5,
    data: { collection: record, settledAt: at },
  };
  const refund = (
    refundReference: string,
    overrides: Partial<PublishedRefundV1> = {},
    revision = 4,
  ): IntegrationEnvelope => ({
    id: randomUUID(),
    type: DISBURSEMENTS.refundSettled,
    version: 1,
    streamName: `refund-${MERCHANT}-${refundReference}`,
    revision,
    data: {
      refund: publishedRefund({
        merchantId: MERCHANT,
        refundReference,
        internalReference: ref,
        merchantReference: record.merchantReference,
        ...overrides,
      }),
      settledAt: at,
    },
  });
  return { ref, merchantReference: record.merchantReference, completed, refund };
}

const webhookId = (event: IntegrationEnvelope) => `msg_${event.id}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeDeliveryScenarios(({ endpoint, dispatcher, find, settled }) => {
  async function project(projector: CallbackProjector, ...events: IntegrationEnvelope[]) {
    for (const event of events) await projector.project([event]);
  }

  async function projecting(collectionsUrl: string | null, paymentsUrl: string | null) {
    const delivery = await dispatcher();
    const projector = new CallbackProjector(merchants(collectionsUrl, paymentsUrl), delivery.queue);
    return { ...delivery, projector, events: refundedCollection() };
  }

  /** An endpoint answering `answer(event, refund_reference, times seen before)`, recording `event [reference] status`. */
  async function recordingEndpoint(answer: (event: string, seen: number, refund?: string) => number = () => 200) {
    const answered: string[] = [];
    const seen = new Map<string, number>();
    const target = await endpoint((received, response) => {
      const { event, payload } = JSON.parse(received.body.toString('utf8')) as {
        event: string;
        payload: { refund_reference?: string };
      };
      const key = `${event} ${payload.refund_reference ?? ''}`.trim();
      const code = answer(event, seen.get(key) ?? 0, payload.refund_reference);
      seen.set(key, (seen.get(key) ?? 0) + 1);
      answered.push(`${key} ${code}`);
      response.writeHead(code).end();
    });
    return { target, answered };
  }

  it('sends refund.completed to the collection callback URL, not the payments one, signed over refund_reference, internal_reference, status and merchant_reference', async () => {
    const collections = await endpoint();
    const payments = await endpoint();
    const { projector, events, startWorker } = await projecting(collections.url(), payments.url('/payments'));
    const refunded = events.refund('refund-1');
    await project(projector, events.completed, refunded);
    startWorker();

    expect(await settled(webhookId(refunded), 'delivered')).toMatchObject({
      eventName: 'refund.completed',
      targetUrl: collections.url(),
      // The collection's reference: the callback log, resend and the order rule see it among the collection's.
      internalReference: events.ref,
      merchantId: MERCHANT,
    });
    expect(payments.received).toHaveLength(0);
    const request = collections.received.find((received) => received.webhookId === webhookId(refunded))!;
    const body = request.body.toString('utf8');
    expect(JSON.parse(body)).toEqual({
      event: 'refund.completed',
      payload: {
        refund_reference: 'refund-1',
        internal_reference: events.ref,
        merchant_reference: events.merchantReference,
        amount: 20000,
        currency: 'UGX',
        status: 'COMPLETED',
        pending_reason: null,
        failure_reason: null,
        reason: 'Order cancelled by the customer',
        livemode: false,
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-01T00:00:05.000Z',
      },
    });
    const fields = {
      refund_reference: 'refund-1',
      internal_reference: events.ref,
      status: 'COMPLETED',
      merchant_reference: events.merchantReference,
    };
    expect(request.headers['hmac-signature']).toBe(refundSignature(KEY, fields));
    expect(verifyStandardWebhook(KEY, flat(request.headers), body)).toBe(true);
  });

  it('sends refund.failed with the provider’s reason, signed over status FAILED', async () => {
    const collections = await endpoint();
    const { projector, events, startWorker } = await projecting(collections.url(), null);
    const refused = events.refund('refund-2', { status: 'FAILED', failureReason: 'the provider refused the refund' });
    await project(projector, events.completed, refused);
    startWorker();

    await settled(webhookId(refused), 'delivered');
    const request = collections.received.find((received) => received.webhookId === webhookId(refused))!;
    const { event, payload } = JSON.parse(request.body.toString('utf8'));
    expect(event).toBe('refund.failed');
    expect(payload).toMatchObject({ status: 'FAILED', failure_reason: 'the provider refused the refund' });
    expect(request.headers['hmac-signature']).toBe(
      refundSignature(KEY, {
        refund_reference: 'refund-2',
        internal_reference: events.ref,
        status: 'FAILED',
        merchant_reference: events.merchantReference,
      }),
    );
  });

  it('a refund that overtakes its collection waits until transaction.completed is queued, and goes after it is delivered', async () => {
    const { target, answered } = await recordingEndpoint((event, seen) =>
      event === 'transaction.completed' && seen < 2 ? 500 : 200,
    );
    const { projector, events, startWorker } = await projecting(target.url(), null);
    const refunded = events.refund('refund-1');
    // Over Kafka the disbursements topic may be ahead of the collections topic.
    await project(projector, refunded);
    startWorker();
    await sleep(300);
    expect(await find(webhookId(refunded))).toMatchObject({ state: 'pending', attempts: [] });
    expect(answered).toEqual([]);

    await project(projector, events.completed);
    await settled(webhookId(refunded), 'delivered');
    expect(answered).toEqual([
      'transaction.completed 500',
      'transaction.completed 500',
      'transaction.completed 200',
      'refund.completed refund-1 200',
    ]);
  });

  it('refunds of one collection do not wait for one another: one being retried holds no other', async () => {
    const { target, answered } = await recordingEndpoint((event, _seen, refund) => (refund === 'refund-a' ? 503 : 200));
    const { projector, events, startWorker } = await projecting(target.url(), null);
    const first = events.refund('refund-a');
    // Settled later in its own stream (a reconciled refund has more events): its revision says nothing about refund-a.
    const second = events.refund('refund-b', { status: 'FAILED', failureReason: 'refused' }, 9);
    await project(projector, events.completed, first, second);
    startWorker();

    await settled(webhookId(second), 'delivered');
    expect(answered).toContain('refund.failed refund-b 200');
    expect(answered).toContain('refund.completed refund-a 503');
    // Still being retried (pending, or claimed for its next attempt) while the other refund's was delivered.
    const retried = await find(webhookId(first));
    expect(['pending', 'delivering']).toContain(retried.state);
    expect(retried.attempts.length).toBeGreaterThan(0);
    expect(retried.attempts.every((attempt) => attempt.statusCode === 503)).toBe(true);
  });

  it('a redelivered refund event schedules nothing new; resend sends the collection’s and its refunds’ callbacks again with their webhook ids', async () => {
    const { target, answered } = await recordingEndpoint();
    const { history, projector, events, startWorker } = await projecting(target.url(), null);
    const refunded = events.refund('refund-1');
    await project(projector, events.completed, refunded, refunded);
    const worker = startWorker();
    await project(projector, refunded);
    await settled(webhookId(refunded), 'delivered');
    await sleep(200);
    expect(answered).toEqual(['transaction.completed 200', 'refund.completed refund-1 200']);

    expect(await history.resend(MERCHANT, events.ref)).toBe(2);
    worker.notify();
    await eventually(() => (target.received.length === 4 ? true : undefined), 10_000, 'two callbacks resent');
    expect(answered.slice(2)).toEqual(['transaction.completed 200', 'refund.completed refund-1 200']);
    expect(target.received.map((request) => request.webhookId)).toEqual([
      webhookId(events.completed),
      webhookId(refunded),
      webhookId(events.completed),
      webhookId(refunded),
    ]);
  });
});
