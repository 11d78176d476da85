/**
 * The callback projector on the real delivery queue (setup in delivery/delivery-worker-test-setup.ts):
 * payment.completed and payment.failed routed to the service payments callback URL, ordered with
 * the collection's callbacks whatever order their events arrive in, deduplicated by event id and
 * covered by resend.
 */
import { randomUUID } from 'node:crypto';
import {
  COLLECTION_INTEGRATION_EVENTS as COLLECTIONS,
  PAYMENTS_INTEGRATION_EVENTS as PAYMENTS,
  type CollectionCancellationReason,
  type CollectionStatus,
  type IntegrationEnvelope,
  type PublishedServicePaymentV1,
  type ServicePaymentStatus,
} from '@paygate/contracts';
import type { Merchant } from '@paygate/merchants';
import { collectionSignature, verifyStandardWebhook } from '@paygate/signing';
import { eventually, publishedCollection, publishedServicePayment } from '@paygate/testing';
import { CallbackProjector } from './callback-projector';
import { describeDeliveryScenarios, flat, KEY } from './delivery/delivery-worker-test-setup';

const MERCHANT = 'merchant-1';
const at = '2026-01-01T00:00:00.000Z';

/** A merchant with these callback URLs: the projector reads nothing else. */
function merchants(collectionCallbackUrl: string | null, servicePaymentsCallbackUrl: string | null) {
  const merchant: Merchant = {
    id: MERCHANT,
    name: 'Tax office',
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

/** The published events of one collect-for-payment transaction, as the broker hands them over. */
function transaction() {
  const ref = `PG${randomUUID().replaceAll('-', '').slice(0, 24).toUpperCase()}`;
  const record = publishedCollection({
    merchantId: MERCHANT,
    merchantReference: `tax-${ref}`,
    internalReference: ref,
    statusMessage: 'Transaction initiated. Validating the PRN before collection',
    prn: '2250000123456',
  });
  const payment = (paymentStatus: ServicePaymentStatus, statusMessage: string): PublishedServicePaymentV1 =>
    publishedServicePayment({
      merchantId: MERCHANT,
      merchantReference: record.merchantReference,
      internalReference: ref,
      status: paymentStatus,
      statusMessage,
      billerPaymentId: paymentStatus === 'COMPLETED' ? 'ura-pay-1' : null,
    });
  const fromCollection = (type: string, revision: number, data: object): IntegrationEnvelope => ({
    id: randomUUID(),
    type,
    version: 1,
    streamName: `collection-${ref}`,
    revision,
    data,
  });
  const fromPayment = (type: string, revision: number, data: object): IntegrationEnvelope => ({
    id: randomUUID(),
    type,
    version: 1,
    streamName: `service-payment-${ref}`,
    revision,
    data,
  });
  const settled = (
    revision: number,
    collectionStatus: CollectionStatus,
    statusMessage: string,
    cancellationReason?: CollectionCancellationReason,
  ) =>
    fromCollection(COLLECTIONS.settled, revision, {
      collection: {
        ...record,
        status: collectionStatus,
        statusMessage,
        ...(cancellationReason && { cancellationReason }),
      },
      settledAt: at,
    });
  return {
    ref,
    requested: fromCollection(COLLECTIONS.servicePaymentRequested, 1, { collection: record, requestedAt: at }),
    opened: fromCollection(COLLECTIONS.opened, 3, {
      collection: { ...record, statusMessage: 'Transaction initiated. Pending customer confirmation' },
      openedAt: at,
    }),
    completed: settled(8, 'COMPLETED', 'Transaction completed successfully'),
    cancelled: settled(3, 'CANCELLED', 'PRN not eligible: already paid', 'PRN_NOT_ELIGIBLE'),
    prnValidated: fromPayment(PAYMENTS.prnValidated, 2, {
      payment: payment('PENDING', 'PRN validated. Awaiting the collection'),
      validatedAt: at,
    }),
    // Revisions of two streams say nothing about each other: this one is above the cancellation's.
    prnRejected: fromPayment(PAYMENTS.prnRejected, 5, {
      payment: payment('FAILED', 'PRN not eligible: already paid'),
      reasonCode: 'PRN_ALREADY_PAID',
      reason: 'already paid',
      rejectedAt: at,
    }),
    paid: fromPayment(PAYMENTS.completed, 6, {
      payment: payment('COMPLETED', 'PRN paid successfully'),
      completedAt: at,
    }),
  };
}

const webhookId = (event: IntegrationEnvelope) => `msg_${event.id}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeDeliveryScenarios(({ endpoint, dispatcher, find, settled }) => {
  /** Projects `events` in this order, as the consumer would. */
  async function project(projector: CallbackProjector, ...events: IntegrationEnvelope[]) {
    for (const event of events) await projector.project([event]);
  }

  /** What arrived, as `event status`, where `answered` records the endpoint's answers. */
  const arrivals = (answered: Array<{ event: string; status: number }>) =>
    answered.map((entry) => `${entry.event} ${entry.status}`);

  /** A dispatcher, a projector for a merchant with these callback URLs onto its queue, and a new transaction. */
  async function projecting(
    collectionsUrl: string | null,
    paymentsUrl: string | null,
    overrides?: Parameters<typeof dispatcher>[0],
  ) {
    const delivery = await dispatcher(overrides);
    const projector = new CallbackProjector(merchants(collectionsUrl, paymentsUrl), delivery.queue);
    return { ...delivery, projector, events: transaction() };
  }

  async function recordingEndpoint(answer: (event: string, seen: number) => number = () => 200) {
    const answered: Array<{ event: string; status: number }> = [];
    const target = await endpoint((received, response) => {
      const { event } = JSON.parse(received.body.toString('utf8')) as { event: string };
      const code = answer(event, answered.filter((entry) => entry.event === event).length);
      answered.push({ event, status: code });
      response.writeHead(code).end();
    });
    return { target, answered };
  }

  async function expectWaiting(...ids: string[]) {
    await sleep(300);
    for (const id of ids) expect(await find(id)).toMatchObject({ state: 'pending', attempts: [] });
  }

  it('sends payment.completed to the service payments URL, signed over its own transaction_status, and collection callbacks to the collection URL', async () => {
    const collections = await endpoint();
    const payments = await endpoint();
    const { projector, events, startWorker } = await projecting(collections.url(), payments.url('/payments'));
    await project(projector, events.requested, events.prnValidated, events.opened, events.completed, events.paid);
    startWorker();

    const paid = await settled(webhookId(events.paid), 'delivered');
    expect(paid).toMatchObject({
      eventName: 'payment.completed',
      targetUrl: payments.url('/payments'),
      internalReference: events.ref,
      merchantId: MERCHANT,
    });
    await settled(webhookId(events.completed), 'delivered');
    expect(collections.received.map((request) => JSON.parse(request.body.toString('utf8')).event)).toEqual([
      'transaction.charges',
      'transaction.completed',
    ]);
    expect(payments.received).toHaveLength(1);

    const [request] = payments.received;
    const body = request.body.toString('utf8');
    const { event, payload } = JSON.parse(body);
    expect(event).toBe('payment.completed');
    expect(payload).toMatchObject({
      id: 7,
      internal_reference: events.ref,
      transaction_type: 'SERVICE_PAYMENT',
      transaction_status: 'COMPLETED',
      account_number: '2250000123456',
      additional_details: {},
    });
    expect(request.webhookId).toBe(webhookId(events.paid));
    const fields = {
      id: 7,
      internal_reference: events.ref,
      transaction_status: 'COMPLETED',
      merchant_reference: `tax-${events.ref}`,
    };
    expect(request.headers['hmac-signature']).toBe(collectionSignature(KEY, fields));
    expect(verifyStandardWebhook(KEY, flat(request.headers), body)).toBe(true);
  });

  it('one URL for both: payment.completed that overtakes its collection waits until transaction.completed is queued and delivered', async () => {
    const { target, answered } = await recordingEndpoint((event, seen) =>
      event === 'transaction.completed' && seen < 2 ? 500 : 200,
    );
    const { projector, events, startWorker } = await projecting(target.url(), target.url());
    // Over Kafka the payments topic may be ahead of the collections topic.
    await project(projector, events.prnValidated, events.paid);
    startWorker();
    await expectWaiting(webhookId(events.paid));
    expect(answered).toEqual([]);

    await project(projector, events.requested, events.opened, events.completed);
    await settled(webhookId(events.paid), 'delivered');
    expect(arrivals(answered)).toEqual([
      'transaction.charges 200',
      'transaction.completed 500',
      'transaction.completed 500',
      'transaction.completed 200',
      'payment.completed 200',
    ]);
  });

  it('one URL for both: a rejected PRN’s payment.failed goes before the cancellation it caused, even when the cancellation is queued first', async () => {
    const { target, answered } = await recordingEndpoint((event, seen) =>
      event === 'payment.failed' && seen < 1 ? 503 : 200,
    );
    const { projector, events, startWorker } = await projecting(target.url(), target.url());
    await project(projector, events.requested, events.cancelled);
    startWorker();
    await expectWaiting(webhookId(events.cancelled));

    await project(projector, events.prnRejected);
    await settled(webhookId(events.cancelled), 'delivered');
    expect(arrivals(answered)).toEqual(['payment.failed 503', 'payment.failed 200', 'transaction.cancelled 200']);
    const failed = JSON.parse(target.received[0].body.toString('utf8')).payload;
    expect(failed).toMatchObject({
      transaction_status: 'FAILED',
      status_message: 'PRN not eligible: already paid',
      additional_details: {},
    });
  });

  it('two URLs: a payment callback waits for its cause to be queued, not delivered, so a failing collection URL does not hold it', async () => {
    const collections = await endpoint(() => undefined); // never answers
    const payments = await endpoint();
    const { projector, events, startWorker } = await projecting(collections.url(), payments.url(), {
      timeoutMs: 10_000,
    });
    await project(projector, events.paid);
    startWorker();
    await expectWaiting(webhookId(events.paid));

    await project(projector, events.completed);
    await settled(webhookId(events.paid), 'delivered');
    // The collection's callback is still hanging at its URL (claimed now or on the next tick): payment.completed did
    // not wait for it.
    await settled(webhookId(events.completed), 'delivering');
  });

  it('a redelivered payments event schedules nothing new; PrnValidated schedules nothing', async () => {
    const { target, answered } = await recordingEndpoint();
    const { history, projector, events, startWorker } = await projecting(null, target.url());
    expect(await projector.project([events.prnValidated])).toEqual([]);
    await project(projector, events.completed, events.paid, events.paid);
    startWorker();
    await project(projector, events.paid);

    await settled(webhookId(events.paid), 'delivered');
    await sleep(200);
    const deliveries = await history.list({ limit: 100 });
    expect(deliveries.map((delivery) => [delivery.eventName, delivery.webhookId, delivery.state])).toEqual([
      ['transaction.completed', webhookId(events.completed), 'undeliverable'],
      ['payment.completed', webhookId(events.paid), 'delivered'],
    ]);
    expect(arrivals(answered)).toEqual(['payment.completed 200']);
  });

  it('a merchant without a service payments URL gets the payment callback recorded as undeliverable', async () => {
    const collections = await endpoint();
    const { projector, events, startWorker } = await projecting(collections.url(), null);
    await project(projector, events.prnRejected, events.cancelled);
    startWorker();

    await settled(webhookId(events.cancelled), 'delivered');
    expect(await find(webhookId(events.prnRejected))).toMatchObject({
      eventName: 'payment.failed',
      state: 'undeliverable',
      lastError: 'no callback URL',
    });
  });

  it('resend sends the collection’s and the payment’s callbacks again, in order, with their webhook ids', async () => {
    const { target, answered } = await recordingEndpoint();
    const { history, projector, events, startWorker } = await projecting(target.url(), target.url());
    await project(projector, events.opened, events.completed, events.paid);
    const worker = startWorker();
    await settled(webhookId(events.paid), 'delivered');
    const ids = target.received.map((request) => request.webhookId);

    expect(await history.resend(MERCHANT, events.ref)).toBe(3);
    worker.notify();
    await eventually(() => (target.received.length === 6 ? true : undefined), 10_000, 'three callbacks resent');
    expect(arrivals(answered).slice(3)).toEqual([
      'transaction.charges 200',
      'transaction.completed 200',
      'payment.completed 200',
    ]);
    expect(target.received.slice(3).map((request) => request.webhookId)).toEqual(ids);
    expect(ids).toEqual([webhookId(events.opened), webhookId(events.completed), webhookId(events.paid)]);
  });
});
