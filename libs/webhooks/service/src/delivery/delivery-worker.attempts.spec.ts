/**
 * The callback delivery worker against real HTTP endpoints on a real database (setup in
 * delivery-worker-test-setup.ts). This file: how each attempt is made and judged: the signed
 * request, timeouts, resets, error statuses and the retry schedule, redirects never followed,
 * response bodies cut at 1 KiB, 410 Gone and Retry-After, and the signing key looked up once per
 * merchant for the callbacks claimed together.
 */
import { verifyCollectionSignature, verifyStandardWebhook } from '@paygate/signing';
import { eventually } from '@paygate/testing';
import { Webhook } from 'standardwebhooks';
import { byAttempt, describeDeliveryScenarios, flat, KEY, newDelivery, status } from './delivery-worker-test-setup';

describeDeliveryScenarios(({ endpoint, dispatcher, find, settled, keyLookups }) => {
  it('2xx delivers the exact stored bytes with both signatures; webhook-id stable, webhook-timestamp per attempt', async () => {
    const target = await endpoint(byAttempt(status(500), status(204, '')));
    const { queue, startWorker } = await dispatcher({ retrySchedule: [0, 1_500] });
    const delivery = newDelivery(target.url());
    await queue.enqueue([delivery]);
    startWorker();

    const done = await settled(delivery.webhookId, 'delivered');
    expect(done.attempts.map((attempt) => attempt.statusCode)).toEqual([500, 204]);
    expect(done.deliveredAt).toBeInstanceOf(Date);
    expect(target.received).toHaveLength(2);
    const payload = JSON.parse(delivery.body).payload;
    target.received.forEach((request, index) => {
      expect(request.body.equals(Buffer.from(delivery.body, 'utf8'))).toBe(true);
      expect(request.webhookId).toBe(delivery.webhookId);
      expect(request.headers['content-type']).toBe('application/json');
      expect(verifyCollectionSignature(KEY, payload, String(request.headers['hmac-signature']))).toBe(true);
      expect(verifyStandardWebhook(KEY, flat(request.headers), request.body.toString('utf8'))).toBe(true);
      expect(() =>
        new Webhook(KEY, { format: 'raw' }).verify(request.body.toString('utf8'), flat(request.headers)),
      ).not.toThrow();
      expect(Number(request.headers['webhook-timestamp'])).toBe(
        Math.floor(done.attempts[index].startedAt.getTime() / 1_000),
      );
    });
    expect(Number(target.received[1].headers['webhook-timestamp'])).toBeGreaterThan(
      Number(target.received[0].headers['webhook-timestamp']),
    );
  });

  it('a receiver that hangs: every attempt times out, is retried on schedule, then the delivery is abandoned', async () => {
    const target = await endpoint(() => undefined);
    const { queue, startWorker } = await dispatcher({ timeoutMs: 300, retrySchedule: [0, 50, 50] });
    const delivery = newDelivery(target.url());
    await queue.enqueue([delivery]);
    startWorker();

    const abandoned = await settled(delivery.webhookId, 'abandoned');
    expect(abandoned.attempts).toHaveLength(3);
    for (const attempt of abandoned.attempts) {
      expect(attempt.statusCode).toBeNull();
      expect(attempt.error).toBe('timed out after 300 ms');
      expect(attempt.durationMs).toBeGreaterThanOrEqual(290);
    }
    expect(target.countFor(delivery.webhookId)).toBe(3);
  });

  it('a connection reset is a failed attempt, and the retry delivers', async () => {
    const target = await endpoint(byAttempt((_response, request) => request.socket.destroy(), status(200)));
    const { queue, startWorker } = await dispatcher();
    const delivery = newDelivery(target.url());
    await queue.enqueue([delivery]);
    startWorker();

    const done = await settled(delivery.webhookId, 'delivered');
    expect(done.attempts.map((attempt) => [attempt.statusCode, attempt.error === null])).toEqual([
      [null, false],
      [200, true],
    ]);
  });

  it('500 forever: abandoned after the schedule, every attempt recorded with its status and excerpt', async () => {
    const target = await endpoint(byAttempt(status(500, '{"error":"upstream exploded"}')));
    const { queue, startWorker } = await dispatcher({ retrySchedule: [0, 50, 50, 50] });
    const delivery = newDelivery(target.url());
    await queue.enqueue([delivery]);
    startWorker();

    const abandoned = await settled(delivery.webhookId, 'abandoned');
    expect(
      abandoned.attempts.map(({ attempt, statusCode, responseExcerpt, error }) => ({
        attempt,
        statusCode,
        responseExcerpt,
        error,
      })),
    ).toEqual(
      [1, 2, 3, 4].map((attempt) => ({
        attempt,
        statusCode: 500,
        responseExcerpt: '{"error":"upstream exploded"}',
        error: null,
      })),
    );
    expect(abandoned).toMatchObject({ lastStatus: 500, attemptsInRound: 4 });
    expect(target.received).toHaveLength(4);
  });

  it('200 after two failures: delivered on the third attempt', async () => {
    const target = await endpoint(byAttempt(status(503), status(502), status(200)));
    const { queue, startWorker } = await dispatcher();
    const delivery = newDelivery(target.url());
    await queue.enqueue([delivery]);
    startWorker();

    const done = await settled(delivery.webhookId, 'delivered');
    expect(done.attempts.map((attempt) => attempt.statusCode)).toEqual([503, 502, 200]);
    expect(target.received).toHaveLength(3);
  });

  it('a redirect is a failure and is never followed', async () => {
    const elsewhere = await endpoint();
    const location = { location: elsewhere.url('/stolen') };
    const target = await endpoint(byAttempt(status(301, 'moved', location), status(302, 'found', location)));
    const { queue, startWorker } = await dispatcher({ retrySchedule: [0, 50] });
    const delivery = newDelivery(target.url());
    await queue.enqueue([delivery]);
    startWorker();

    const abandoned = await settled(delivery.webhookId, 'abandoned');
    expect(abandoned.attempts.map((attempt) => attempt.statusCode)).toEqual([301, 302]);
    expect(elsewhere.received).toHaveLength(0);
  });

  it('a huge or endless response body is cut at 1 KiB and does not hold the attempt', async () => {
    const endless = await endpoint((_received, response) => {
      response.writeHead(200);
      const more = () => {
        while (response.write(Buffer.alloc(64 * 1024, 'x')));
      };
      response.on('drain', more);
      more();
    });
    const huge = await endpoint((_received, response) =>
      response.writeHead(500).end(Buffer.alloc(50 * 1024 * 1024, 'y')),
    );
    const { queue, startWorker } = await dispatcher({ retrySchedule: [0], timeoutMs: 5_000 });
    const toEndless = newDelivery(endless.url());
    const toHuge = newDelivery(huge.url());
    await queue.enqueue([toEndless, toHuge]);
    startWorker();

    const delivered = await settled(toEndless.webhookId, 'delivered');
    const abandoned = await settled(toHuge.webhookId, 'abandoned');
    for (const attempt of [...delivered.attempts, ...abandoned.attempts]) {
      expect(attempt.error).toBeNull();
      expect(attempt.responseExcerpt.length).toBeGreaterThan(0);
      expect(Buffer.byteLength(attempt.responseExcerpt)).toBeLessThanOrEqual(1_024);
    }
    expect(abandoned.attempts[0].statusCode).toBe(500);
  });

  it('410 Gone: abandoned after one attempt', async () => {
    const target = await endpoint(byAttempt(status(410, 'gone')));
    const { queue, startWorker } = await dispatcher();
    const delivery = newDelivery(target.url());
    await queue.enqueue([delivery]);
    startWorker();

    const abandoned = await settled(delivery.webhookId, 'abandoned');
    expect(abandoned.attempts.map((attempt) => attempt.statusCode)).toEqual([410]);
    expect(target.received).toHaveLength(1);
  });

  it('Retry-After: 2 puts the next attempt at least ~2 s away, past a shorter schedule step', async () => {
    const target = await endpoint(byAttempt(status(503, 'busy', { 'retry-after': '2' })));
    const { queue, startWorker } = await dispatcher({ retrySchedule: [0, 50, 50] });
    const delivery = newDelivery(target.url());
    await queue.enqueue([delivery]);
    startWorker();

    const waiting = await eventually(async () => {
      const found = await find(delivery.webhookId);
      return found.attempts.length === 1 && found.state === 'pending' ? found : undefined;
    });
    // Measured from the attempt rather than from now, which a busy test machine would make late.
    expect(waiting.nextAttemptAt.getTime()).toBeGreaterThanOrEqual(waiting.attempts[0].startedAt.getTime() + 1_900);
  });

  it("looks up a merchant's signing key once for its callbacks claimed together, and signs each with it", async () => {
    const target = await endpoint();
    const { queue, startWorker } = await dispatcher({ perHostConcurrency: 16 });
    const deliveries = Array.from({ length: 10 }, () => newDelivery(target.url()));
    await queue.enqueue(deliveries);
    startWorker();

    for (const delivery of deliveries) await settled(delivery.webhookId, 'delivered');
    expect(keyLookups()).toBe(1);
    for (const request of target.received)
      expect(verifyStandardWebhook(KEY, flat(request.headers), request.body.toString('utf8'))).toBe(true);
  });
});
