/**
 * The callback delivery worker against real HTTP endpoints on a real database (setup in
 * delivery-worker-test-setup.ts). This file: order per transaction, per-host slots, two workers on
 * one queue, leases taken over, notify() and stop().
 */
import { eventually } from '@paygate/testing';
import type { NewDelivery } from './delivery-queue';
import { describeDeliveryScenarios, newDelivery } from './delivery-worker-test-setup';

describeDeliveryScenarios(({ db, endpoint, dispatcher, find, settled }) => {
  it('keeps one transaction’s callbacks to one URL in order, without holding up another transaction', async () => {
    const arrivals: Array<{ webhookId: string; status: number }> = [];
    let ordered: NewDelivery[] = [];
    const target = await endpoint((received, response) => {
      const first = ordered[0].webhookId;
      const code =
        received.webhookId === first && arrivals.filter((entry) => entry.webhookId === first).length < 2 ? 500 : 200;
      arrivals.push({ webhookId: received.webhookId, status: code });
      response.writeHead(code).end();
    });
    ordered = [
      newDelivery(target.url(), { internalReference: 'IR-ordered', sequence: 1, eventName: 'transaction.charges' }),
      newDelivery(target.url(), { internalReference: 'IR-ordered', sequence: 2 }),
      newDelivery(target.url(), { internalReference: 'IR-ordered', sequence: 3 }),
    ];
    const other = newDelivery(target.url(), { internalReference: 'IR-other' });
    const { queue, startWorker } = await dispatcher();
    await queue.enqueue([...ordered, other]);
    startWorker();

    for (const delivery of [...ordered, other]) await settled(delivery.webhookId, 'delivered');
    const [a, b, c] = ordered.map((delivery) => delivery.webhookId);
    expect(arrivals.filter((entry) => entry.webhookId !== other.webhookId)).toEqual([
      { webhookId: a, status: 500 },
      { webhookId: a, status: 500 },
      { webhookId: a, status: 200 },
      { webhookId: b, status: 200 },
      { webhookId: c, status: 200 },
    ]);
    const delivered = (webhookId: string) =>
      arrivals.findIndex((entry) => entry.webhookId === webhookId && entry.status === 200);
    expect(delivered(other.webhookId)).toBeLessThan(delivered(a));
  });

  it('a host that hangs holds only its own slots: another host’s deliveries all arrive meanwhile', async () => {
    const slow = await endpoint(() => undefined, '127.0.0.2');
    const fast = await endpoint(undefined, '127.0.0.1');
    const { queue, history, startWorker } = await dispatcher({ timeoutMs: 10_000, perHostConcurrency: 2 });
    const toSlow = Array.from({ length: 10 }, () => newDelivery(slow.url()));
    const toFast = Array.from({ length: 10 }, () => newDelivery(fast.url()));
    await queue.enqueue(toSlow);
    await queue.enqueue(toFast);
    startWorker();

    for (const delivery of toFast) await settled(delivery.webhookId, 'delivered');
    const slowStates = (await history.list({ limit: 100 }))
      .filter((delivery) => delivery.targetHost === '127.0.0.2')
      .map((delivery) => delivery.state);
    expect(slowStates.filter((state) => state === 'delivering')).toHaveLength(2);
    expect(slowStates.filter((state) => state === 'pending')).toHaveLength(8);
    expect(fast.received).toHaveLength(10);
  });

  it('runs at most CALLBACK_MAX_IN_FLIGHT attempts at once, all hosts together', async () => {
    const hosts = ['127.0.0.2', '127.0.0.3', '127.0.0.4'];
    const hanging = await Promise.all(hosts.map((host) => endpoint(() => undefined, host)));
    const { queue, history, startWorker } = await dispatcher({
      timeoutMs: 10_000,
      perHostConcurrency: 2,
      maxInFlight: 3,
    });
    await queue.enqueue(hanging.flatMap((target) => [newDelivery(target.url()), newDelivery(target.url())]));
    startWorker();

    const delivering = async () =>
      (await history.list({ limit: 100 })).filter((delivery) => delivery.state === 'delivering').length;
    await eventually(async () => ((await delivering()) === 3 ? true : undefined));
    // Ten ticks later no fourth attempt has started, though every host has room under its own cap.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await delivering()).toBe(3);
    expect(hanging.reduce((sum, target) => sum + target.received.length, 0)).toBe(3);
  });

  it('two workers on one queue deliver 200 callbacks, each received exactly once', async () => {
    const target = await endpoint();
    const { queue, history, startWorker } = await dispatcher({ perHostConcurrency: 16 });
    const deliveries = Array.from({ length: 200 }, () => newDelivery(target.url()));
    await queue.enqueue(deliveries);
    startWorker();
    startWorker();

    await eventually(
      async () => {
        const [{ delivered }] = await db().query<{ delivered: number }>(
          `select cast(count(*) as integer) as delivered from webhook_deliveries where state = 'delivered'`,
        );
        return delivered === 200 ? true : undefined;
      },
      30_000,
      '200 delivered',
    );
    const counts = new Map<string, number>();
    for (const request of target.received) counts.set(request.webhookId, (counts.get(request.webhookId) ?? 0) + 1);
    expect(counts.size).toBe(200);
    expect([...counts.values()].every((count) => count === 1)).toBe(true);
    expect((await history.list({ limit: 1_000 })).every((delivery) => delivery.attempts.length === 1)).toBe(true);
  });

  it('a claim that is never finished is taken over after its lease; the stale claimer then changes nothing', async () => {
    const target = await endpoint();
    const { queue, claim, startWorker } = await dispatcher({ timeoutMs: 300, leaseMarginMs: 200 });
    const delivery = newDelivery(target.url());
    await queue.enqueue([delivery]);
    const [stale] = await claim(10);
    expect(stale.key).toBe(delivery.webhookId);
    const { leaseUntil } = await find(delivery.webhookId);
    startWorker();

    const done = await settled(delivery.webhookId, 'delivered');
    expect(done.attempts[0].startedAt.getTime()).toBeGreaterThanOrEqual(leaseUntil!.getTime());
    expect(target.received).toHaveLength(1);

    const outcome = { startedAt: new Date(), durationMs: 5, statusCode: 500, responseExcerpt: 'late' };
    const recorded = await db().transaction((tx) => queue.settle(tx, [{ job: stale, verdict: outcome }]));
    expect(recorded.states).toEqual([undefined]);
    const after = await find(delivery.webhookId);
    expect(after.state).toBe('delivered');
    expect(after.attempts.map((attempt) => [attempt.attempt, attempt.statusCode])).toEqual([
      [1, 200],
      [2, 500],
    ]);
  });

  it('notify() sends a new delivery at once, without waiting for the tick', async () => {
    const target = await endpoint();
    const { queue, startWorker } = await dispatcher({ tickMs: 600_000 });
    const worker = startWorker();
    const delivery = newDelivery(target.url());
    await queue.enqueue([delivery]);
    worker.notify();

    await settled(delivery.webhookId, 'delivered', 5_000);
  });

  it('stop() waits for the attempts in flight to be sent and recorded', async () => {
    const target = await endpoint((_received, response) => setTimeout(() => response.end('slowly'), 200));
    const { queue, startWorker } = await dispatcher({ timeoutMs: 5_000 });
    const delivery = newDelivery(target.url());
    await queue.enqueue([delivery]);
    const worker = startWorker();
    await eventually(() => (target.received.length === 1 ? true : undefined));

    await worker.stop();
    expect(await find(delivery.webhookId)).toMatchObject({ state: 'delivered', lastStatus: 200 });
  });
});
