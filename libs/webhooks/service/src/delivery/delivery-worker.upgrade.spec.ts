/**
 * The callback delivery worker against real HTTP endpoints on a real database (setup in
 * delivery-worker-test-setup.ts). This file: callbacks the pods of a release before the job queue
 * still write during a rolling upgrade, after webhooks/0003 has run (the dispatcher applies it),
 * which have no job of their own and are sent all the same.
 */
import type { SqlDatabase } from '@paygate/sql';
import { describeUpgradeScenarios, newDelivery, status, byAttempt } from './delivery-worker-test-setup';
import type { NewDelivery } from './delivery-queue';

/** How a release before the job queue queued a callback: the row alone. */
function queuedByOlderPod(db: SqlDatabase, delivery: NewDelivery): Promise<unknown> {
  return db.query(
    `insert into webhook_deliveries
       (webhook_id, merchant_id, internal_reference, sequence, event_name, awaits, target_url, target_host, body, state, last_error, next_attempt_at)
     values ($1, $2, $3, $4, $5, '{}', $6, $7, $8, 'pending', null, now())
     on conflict (webhook_id) do nothing`,
    [
      delivery.webhookId,
      delivery.merchantId,
      delivery.internalReference,
      delivery.sequence,
      delivery.eventName,
      delivery.targetUrl,
      '127.0.0.1',
      delivery.body,
    ],
  );
}

describeUpgradeScenarios(({ db, endpoint, dispatcher, settled }) => {
  it('sends a callback an older pod queues after the upgrade', async () => {
    const target = await endpoint();
    const { startWorker } = await dispatcher();
    const delivery = newDelivery(target.url());
    await queuedByOlderPod(db(), delivery);
    startWorker();

    await settled(delivery.webhookId, 'delivered');
    expect(target.received.map((request) => request.webhookId)).toEqual([delivery.webhookId]);
  });

  it('sends again an abandoned callback an older pod retries after the upgrade', async () => {
    const target = await endpoint(byAttempt(status(410, 'gone'), status(200)));
    const { queue, startWorker } = await dispatcher();
    const delivery = newDelivery(target.url());
    await queue.enqueue([delivery]);
    startWorker();
    await settled(delivery.webhookId, 'abandoned');

    // The older release's retryAbandoned: the row alone, its job long completed.
    await db().query(
      `update webhook_deliveries set state = 'pending', attempts = 0, next_attempt_at = now() where state = 'abandoned' and webhook_id = any($1::text[])`,
      [[delivery.webhookId]],
    );
    const delivered = await settled(delivery.webhookId, 'delivered');
    expect(delivered.attempts.map((attempt) => attempt.statusCode)).toEqual([410, 200]);
  });
});
