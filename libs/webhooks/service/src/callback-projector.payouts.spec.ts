/**
 * The callback projector's payout callbacks on the real delivery queue (setup in
 * delivery/delivery-worker-test-setup.ts): payout.completed, payout.failed and payout.reversed go
 * to the payouts callback URL, signed over the payout's fields, a reversal after the completion it
 * takes back, deduplicated by event id and covered by resend under the payout's key.
 */
import { randomUUID } from 'node:crypto';
import {
  DISBURSEMENTS_INTEGRATION_EVENTS as DISBURSEMENTS,
  type IntegrationEnvelope,
  type PublishedPayoutV1,
} from '@paygate/contracts';
import type { Merchant } from '@paygate/merchants';
import { payoutSignature, verifyStandardWebhook } from '@paygate/signing';
import { eventually, publishedPayout } from '@paygate/testing';
import { CallbackProjector } from './callback-projector';
import { describeDeliveryScenarios, flat, KEY } from './delivery/delivery-worker-test-setup';

const MERCHANT = 'merchant-1';
const at = '2026-01-01T00:00:00.000Z';

function merchants(urls: Partial<Pick<Merchant, 'collectionCallbackUrl' | 'payoutsCallbackUrl'>>) {
  const merchant: Merchant = {
    id: MERCHANT,
    name: 'Shop',
    status: 'active',
    publicKey: 'pk',
    collectionCallbackUrl: urls.collectionCallbackUrl ?? null,
    servicePaymentsCallbackUrl: null,
    payoutsCallbackUrl: urls.payoutsCallbackUrl ?? null,
    payoutApprovalThreshold: 5_000_000,
    payoutDailyCap: null,
    createdAt: at,
    updatedAt: at,
  };
  return { get: async (id: string) => (id === MERCHANT ? merchant : null) };
}

/** The published events of one payout, as the broker hands them over: `settled(status, revision)`. */
function payoutStream() {
  const reference = `payout-${randomUUID().slice(0, 8)}`;
  const settled = (
    status: PublishedPayoutV1['status'],
    revision: number,
    overrides: Partial<PublishedPayoutV1> = {},
  ): IntegrationEnvelope => ({
    id: randomUUID(),
    type: DISBURSEMENTS.payoutSettled,
    version: 1,
    streamName: `payout-${MERCHANT}:${reference}`,
    revision,
    data: {
      payout: publishedPayout({ merchantId: MERCHANT, payoutReference: reference, status, ...overrides }),
      settledAt: at,
    },
  });
  return { reference, key: `payout:${reference}`, settled };
}

const webhookId = (event: IntegrationEnvelope) => `msg_${event.id}`;

describeDeliveryScenarios(({ endpoint, dispatcher, find, settled }) => {
  async function project(projector: CallbackProjector, ...events: IntegrationEnvelope[]) {
    for (const event of events) await projector.project([event]);
  }

  async function projecting(urls: Parameters<typeof merchants>[0]) {
    const delivery = await dispatcher();
    const projector = new CallbackProjector(merchants(urls), delivery.queue);
    return { ...delivery, projector, payout: payoutStream() };
  }

  /** An endpoint answering `answer(event, times seen before)`, recording `event status`. */
  async function recordingEndpoint(answer: (event: string, seen: number) => number = () => 200) {
    const answered: string[] = [];
    const seen = new Map<string, number>();
    const target = await endpoint((received, response) => {
      const { event } = JSON.parse(received.body.toString('utf8')) as { event: string };
      const code = answer(event, seen.get(event) ?? 0);
      seen.set(event, (seen.get(event) ?? 0) + 1);
      answered.push(`${event} ${code}`);
      response.writeHead(code).end();
    });
    return { target, answered };
  }

  it('sends payout.completed to the payouts callback URL, not the collection one, signed over payout_reference, status, provider_code and msisdn', async () => {
    const collections = await endpoint();
    const payouts = await endpoint();
    const { projector, payout, startWorker } = await projecting({
      collectionCallbackUrl: collections.url(),
      payoutsCallbackUrl: payouts.url('/payouts'),
    });
    const completed = payout.settled('COMPLETED', 5);
    await project(projector, completed);
    startWorker();

    expect(await settled(webhookId(completed), 'delivered')).toMatchObject({
      eventName: 'payout.completed',
      targetUrl: payouts.url('/payouts'),
      internalReference: payout.key,
      merchantId: MERCHANT,
    });
    expect(collections.received).toHaveLength(0);
    const [request] = payouts.received;
    const body = request.body.toString('utf8');
    expect(JSON.parse(body)).toEqual({
      event: 'payout.completed',
      payload: {
        payout_reference: payout.reference,
        amount: 150000,
        fee: 1500,
        currency: 'UGX',
        provider_code: 'mtn_momo_ug',
        msisdn: '256772000001',
        recipient_name: 'Jane Doe',
        status: 'COMPLETED',
        failure_reason: null,
        livemode: false,
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-01T00:00:07.000Z',
      },
    });
    expect(request.headers['hmac-signature']).toBe(
      payoutSignature(KEY, {
        payout_reference: payout.reference,
        status: 'COMPLETED',
        provider_code: 'mtn_momo_ug',
        msisdn: '256772000001',
      }),
    );
    expect(verifyStandardWebhook(KEY, flat(request.headers), body)).toBe(true);
  });

  it('sends payout.failed for a FAILED payout and for one never approved (CANCELLED), each with its reason', async () => {
    const { target } = await recordingEndpoint();
    const { projector, startWorker } = await projecting({ payoutsCallbackUrl: target.url() });
    const failed = payoutStream().settled('FAILED', 4, { failureReason: 'the provider refused the payout' });
    const cancelled = payoutStream().settled('CANCELLED', 2, {
      failureReason: 'not approved within 24 h',
      recipientName: null,
    });
    await project(projector, failed, cancelled);
    startWorker();

    await settled(webhookId(failed), 'delivered');
    await settled(webhookId(cancelled), 'delivered');
    const bodies = target.received.map((request) => JSON.parse(request.body.toString('utf8')));
    expect(bodies).toEqual(
      expect.arrayContaining([
        {
          event: 'payout.failed',
          payload: expect.objectContaining({ status: 'FAILED', failure_reason: 'the provider refused the payout' }),
        },
        {
          event: 'payout.failed',
          payload: expect.objectContaining({ status: 'CANCELLED', failure_reason: 'not approved within 24 h' }),
        },
      ]),
    );
    const request = target.received.find((received) => received.webhookId === webhookId(cancelled))!;
    const { payload } = JSON.parse(request.body.toString('utf8'));
    expect(request.headers['hmac-signature']).toBe(payoutSignature(KEY, payload));
  });

  it('payout.reversed goes after the payout.completed it takes back is acknowledged', async () => {
    const { target, answered } = await recordingEndpoint((event, seen) =>
      event === 'payout.completed' && seen < 2 ? 500 : 200,
    );
    const { projector, payout, startWorker } = await projecting({ payoutsCallbackUrl: target.url() });
    const completed = payout.settled('COMPLETED', 5);
    const reversed = payout.settled('REVERSED', 8, { failureReason: 'reversed by the provider' });
    await project(projector, completed, reversed);
    startWorker();

    await settled(webhookId(reversed), 'delivered');
    expect(answered).toEqual([
      'payout.completed 500',
      'payout.completed 500',
      'payout.completed 200',
      'payout.reversed 200',
    ]);
    const request = target.received.find((received) => received.webhookId === webhookId(reversed))!;
    expect(JSON.parse(request.body.toString('utf8')).payload).toMatchObject({
      status: 'REVERSED',
      failure_reason: 'reversed by the provider',
    });
  });

  it('a merchant without a payouts callback URL gets the callback recorded as undeliverable, though it has a collection one', async () => {
    const collections = await endpoint();
    const { projector, payout } = await projecting({ collectionCallbackUrl: collections.url() });
    const completed = payout.settled('COMPLETED', 5);
    await project(projector, completed);
    expect(await find(webhookId(completed))).toMatchObject({
      state: 'undeliverable',
      targetUrl: null,
      eventName: 'payout.completed',
    });
    expect(collections.received).toHaveLength(0);
  });

  it('a redelivered payout event schedules nothing new; resend under the payout’s key sends its callbacks again with their webhook ids', async () => {
    const { target, answered } = await recordingEndpoint();
    const { history, projector, payout, startWorker } = await projecting({ payoutsCallbackUrl: target.url() });
    const completed = payout.settled('COMPLETED', 5);
    await project(projector, completed, completed);
    const worker = startWorker();
    await project(projector, completed);
    await settled(webhookId(completed), 'delivered');
    expect(answered).toEqual(['payout.completed 200']);

    expect(await history.resend(MERCHANT, payout.key)).toBe(1);
    worker.notify();
    await eventually(() => (target.received.length === 2 ? true : undefined), 10_000, 'the callback resent');
    expect(target.received.map((request) => request.webhookId)).toEqual([webhookId(completed), webhookId(completed)]);
  });
});
