/**
 * The callback delivery worker against real HTTP endpoints on a real database (setup in
 * delivery-worker-test-setup.ts). This file: callbacks never sent (no target, a refused or
 * non-HTTP target, no signing key), idempotent enqueue, and sending again (resend,
 * retryAbandoned).
 */
import { eventually } from '@paygate/testing';
import { TARGET_NOT_ALLOWED } from '@paygate/net-guard';
import { byAttempt, describeDeliveryScenarios, newDelivery, status } from './delivery-worker-test-setup';
import { queueStats } from './queue-metrics';

describeDeliveryScenarios(({ db, endpoint, dispatcher, find, settled }) => {
  it('a callback without a target is recorded as undeliverable, never sent, and the worker carries on', async () => {
    const target = await endpoint();
    const { queue, startWorker } = await dispatcher();
    const nowhere = newDelivery(null);
    const somewhere = newDelivery(target.url());
    await queue.enqueue([nowhere]);
    startWorker();
    await queue.enqueue([somewhere]);

    await settled(somewhere.webhookId, 'delivered');
    expect(await find(nowhere.webhookId)).toMatchObject({
      state: 'undeliverable',
      attempts: [],
      lastError: 'no callback URL',
    });
    expect(target.received.map((request) => request.webhookId)).toEqual([somewhere.webhookId]);
  });

  it('refuses loopback targets unless private callbacks are allowed, and never sends to non-HTTP URLs', async () => {
    const target = await endpoint();
    const { queue, startWorker } = await dispatcher({ allowPrivate: false, retrySchedule: [0, 50] });
    const byAddress = newDelivery(target.url());
    const byName = newDelivery(`http://localhost:${target.port}/hook`);
    const ftp = newDelivery(`ftp://127.0.0.1:${target.port}/hook`);
    await queue.enqueue([byAddress, byName, ftp]);
    startWorker();

    for (const [delivery, range] of [
      [byAddress, 'loopback (127.0.0.0/8)'],
      [byName, 'loopback (localhost)'],
    ] as const) {
      const abandoned = await settled(delivery.webhookId, 'abandoned');
      expect(abandoned.attempts.map((attempt) => attempt.error)).toEqual([
        `${TARGET_NOT_ALLOWED}: ${range}`,
        `${TARGET_NOT_ALLOWED}: ${range}`,
      ]);
    }
    expect(await find(ftp.webhookId)).toMatchObject({
      state: 'undeliverable',
      attempts: [],
      lastError: 'callback URL is not http: or https:',
    });
    expect(target.received).toHaveLength(0);
  });

  it('a merchant without a signing key gets a failed attempt, nothing is sent', async () => {
    const target = await endpoint();
    const { queue, startWorker } = await dispatcher({ retrySchedule: [0] });
    const delivery = newDelivery(target.url(), { merchantId: 'merchant-deleted' });
    await queue.enqueue([delivery]);
    startWorker();

    const abandoned = await settled(delivery.webhookId, 'abandoned');
    expect(abandoned.attempts.map((attempt) => attempt.error)).toEqual(['merchant has no signing key']);
    expect(target.received).toHaveLength(0);
  });

  it('enqueue is idempotent on the webhook id: a redelivered event sends one callback', async () => {
    const target = await endpoint();
    const { queue, history, startWorker } = await dispatcher();
    const delivery = newDelivery(target.url());
    await queue.enqueue([delivery]);
    await queue.enqueue([delivery, { ...delivery, body: '{"changed":true}' }]);
    startWorker();

    await settled(delivery.webhookId, 'delivered');
    expect(await history.list({ limit: 100 })).toHaveLength(1);
    expect(target.received.map((request) => request.body.toString('utf8'))).toEqual([delivery.body]);
  });

  it('counts the callbacks waiting and in flight as a scrape reads the queue, and how long the oldest due one waited', async () => {
    const target = await endpoint();
    const { queue, claim } = await dispatcher();
    expect(await queueStats(db())).toEqual({ pending: 0, delivering: 0, oldestDueSeconds: 0 });
    await queue.enqueue([newDelivery(target.url()), newDelivery(target.url())]);
    const [claimed] = await claim(1);
    expect(claimed).toBeDefined();
    const stats = await queueStats(db());
    expect(stats).toEqual({ pending: 1, delivering: 1, oldestDueSeconds: expect.any(Number) });
    expect(stats.oldestDueSeconds).toBeGreaterThanOrEqual(0);
  });

  it('resend sends a delivered callback again with the same webhook id and a new attempt', async () => {
    const target = await endpoint();
    const { queue, history, startWorker } = await dispatcher();
    const delivery = newDelivery(target.url(), { internalReference: 'IR-resend' });
    await queue.enqueue([delivery]);
    const worker = startWorker();
    await settled(delivery.webhookId, 'delivered');

    expect(await history.resend('another-merchant', 'IR-resend')).toBe(0);
    expect(await history.resend(delivery.merchantId, 'IR-resend')).toBe(1);
    worker.notify();
    const again = await eventually(async () => {
      const found = await find(delivery.webhookId);
      return found.state === 'delivered' && found.attempts.length === 2 ? found : undefined;
    });
    expect(again.attempts.map((attempt) => attempt.attempt)).toEqual([1, 2]);
    expect(target.received.map((request) => request.webhookId)).toEqual([delivery.webhookId, delivery.webhookId]);
  });

  it('resend of a callback whose attempt is still in flight sends it again once more', async () => {
    let answerFirst!: () => void;
    const firstAnswered = new Promise<void>((resolve) => (answerFirst = resolve));
    const target = await endpoint((received, response) => {
      if (target.countFor(received.webhookId) === 1) void firstAnswered.then(() => response.end('ok'));
      else response.end('ok');
    });
    const { queue, history, startWorker } = await dispatcher();
    const delivery = newDelivery(target.url(), { internalReference: 'IR-resend-in-flight' });
    await queue.enqueue([delivery]);
    startWorker();
    await eventually(() => (target.received.length === 1 ? true : undefined));

    expect(await history.resend(delivery.merchantId, 'IR-resend-in-flight')).toBe(1);
    answerFirst();
    const again = await eventually(async () => {
      const found = await find(delivery.webhookId);
      return found.state === 'delivered' && found.attempts.length === 2 ? found : undefined;
    });
    expect(again.attempts.map((attempt) => attempt.statusCode)).toEqual([200, 200]);
    expect(target.received.map((request) => request.webhookId)).toEqual([delivery.webhookId, delivery.webhookId]);
  });

  it('retryAbandoned gives abandoned deliveries a new schedule', async () => {
    const target = await endpoint(byAttempt(status(410), status(200)));
    const { queue, history, startWorker } = await dispatcher({ retrySchedule: [0] });
    const one = newDelivery(target.url());
    const two = newDelivery(target.url());
    await queue.enqueue([one, two]);
    startWorker();
    await settled(one.webhookId, 'abandoned');
    await settled(two.webhookId, 'abandoned');

    expect(await history.retryAbandoned(['msg_unknown'])).toBe(0);
    expect(await history.retryAbandoned([one.webhookId])).toBe(1);
    const revived = await settled(one.webhookId, 'delivered');
    expect(revived.attempts.map((attempt) => attempt.statusCode)).toEqual([410, 200]);
    expect(await history.retryAbandoned()).toBe(1);
    await settled(two.webhookId, 'delivered');
  });
});
