/**
 * A callback must never be sent before what it awaits has settled, whatever makes its job due
 * (setup in delivery-worker-test-setup.ts). The case the chaos soak found with the first job
 * queue: a collect-for-payment collection cancelled because its PRN was rejected, whose
 * `transaction.cancelled` awaits the `payment.failed` that caused it (CallbackOrder), during a
 * database cut. Each path that makes a job due is driven here directly: enqueue in either order,
 * the upgrade's migration that gives an older release's deliveries a job, a wake-up, an enqueue
 * cut off mid-way, resend, and a claim lost with its worker.
 */
import type { SqlDatabase } from '@paygate/sql';
import { WEBHOOKS_MIGRATIONS } from '../migrations';
import { CALLBACK_QUEUE } from './delivery-order';
import type { NewDelivery } from './delivery-queue';
import {
  byAttempt,
  describeDeliveryScenarios,
  describeUpgradeScenarios,
  newDelivery,
  status,
} from './delivery-worker-test-setup';

const PRN_REJECTED_FAILED = -1_000_000_000 + 2;

/** The two callbacks of a collection cancelled because its PRN was rejected, to one URL. */
function prnRejection(url: string): { paymentFailed: NewDelivery; cancelled: NewDelivery } {
  const internalReference = `IR-order-${Math.random().toString(36).slice(2, 10)}`;
  return {
    paymentFailed: newDelivery(url, { internalReference, sequence: PRN_REJECTED_FAILED, eventName: 'payment.failed' }),
    cancelled: newDelivery(url, {
      internalReference,
      sequence: 3,
      eventName: 'transaction.cancelled',
      awaits: ['payment.failed'],
    }),
  };
}

const past = () => new Date(Date.now() - 1_000);
const ONTO_JOB_QUEUE = WEBHOOKS_MIGRATIONS.find((migration) => migration.name === '0003_deliveries_onto_job_queue')!;

/** Makes the jobs of `deliveries` due now, as any path could. */
const forceDue = (db: SqlDatabase, ...deliveries: NewDelivery[]) =>
  CALLBACK_QUEUE.advance(
    db,
    deliveries.map((delivery) => ({ key: delivery.webhookId, at: past() })),
  );

/** The receiver saw the cancellation only after the payment.failed it acknowledged. */
function expectInOrder(
  received: { webhookId: string }[],
  paymentFailed: NewDelivery,
  cancelled: NewDelivery,
  acknowledgedOn: number,
): void {
  const ids = received.map((entry) => entry.webhookId);
  const acknowledged = ids.map((id, i) => (id === paymentFailed.webhookId ? i : -1)).filter((i) => i >= 0)[
    acknowledgedOn - 1
  ];
  expect(acknowledged).toBeDefined();
  expect(ids.indexOf(cancelled.webhookId)).toBeGreaterThan(acknowledged);
}

describeDeliveryScenarios(({ db, endpoint, dispatcher, settled }) => {
  it('a cancellation queued before the payment.failed it awaits is not claimable, even when due, until that one is queued and settled', async () => {
    const target = await endpoint();
    const { queue, claim } = await dispatcher();
    const { paymentFailed, cancelled } = prnRejection(target.url());
    await queue.enqueue([cancelled]);
    await forceDue(db(), cancelled);
    expect(await claim(10)).toEqual([]);

    await queue.enqueue([paymentFailed]);
    await forceDue(db(), cancelled);
    expect((await claim(10)).map((claimed) => claimed.payload.eventName)).toEqual(['payment.failed']);
    await forceDue(db(), cancelled);
    expect(await claim(10)).toEqual([]);
  });

  it('an enqueue of the payment.failed cut off mid-transaction leaves the cancellation waiting; the one that follows sends them in order', async () => {
    const target = await endpoint(byAttempt(status(500), status(200)));
    const { queue, claim, startWorker } = await dispatcher();
    const { paymentFailed, cancelled } = prnRejection(target.url());
    await queue.enqueue([cancelled]);
    await expect(
      db().transaction(async (tx) => {
        await queue.enqueue([paymentFailed], tx);
        throw new Error('Connection terminated unexpectedly');
      }),
    ).rejects.toThrow('Connection terminated unexpectedly');
    await forceDue(db(), cancelled);
    expect(await claim(10)).toEqual([]);

    startWorker();
    await queue.enqueue([paymentFailed]);
    await settled(cancelled.webhookId, 'delivered');
    expectInOrder(target.received, paymentFailed, cancelled, 2);
  });

  it('a wake-up after another callback of the transaction settles does not send the cancellation while its cause is being retried', async () => {
    const target = await endpoint(byAttempt(status(500), status(500), status(200)));
    const { queue, startWorker } = await dispatcher({ retrySchedule: [0, 200, 200, 200] });
    const { paymentFailed, cancelled } = prnRejection(target.url());
    // Another URL's callback of the same transaction settles first and wakes the transaction's waiting jobs.
    const other = await endpoint();
    const charges = newDelivery(other.url(), {
      internalReference: cancelled.internalReference,
      sequence: 1,
      eventName: 'transaction.charges',
    });
    await queue.enqueue([paymentFailed, cancelled, charges]);
    startWorker();

    await settled(charges.webhookId, 'delivered');
    await settled(cancelled.webhookId, 'delivered');
    expectInOrder(target.received, paymentFailed, cancelled, 3);
  });

  it('resend while the payment.failed fails again: the cancellation is sent again only after it', async () => {
    let failing = false;
    let failures = 0;
    let resent = { paymentFailed: newDelivery(null), cancelled: newDelivery(null) };
    const target = await endpoint((received, response) => {
      // After the resend, the payment.failed fails twice before it is acknowledged.
      if (failing && received.webhookId === resent.paymentFailed.webhookId && failures++ < 2)
        response.writeHead(500).end('again');
      else response.end('ok');
    });
    const { queue, history, startWorker } = await dispatcher();
    resent = prnRejection(target.url());
    await queue.enqueue([resent.paymentFailed, resent.cancelled]);
    startWorker();
    await settled(resent.cancelled.webhookId, 'delivered');

    failing = true;
    const before = target.received.length;
    expect(await history.resend('merchant-1', resent.cancelled.internalReference)).toBe(2);
    await forceDue(db(), resent.cancelled);
    await settled(resent.paymentFailed.webhookId, 'delivered');
    await settled(resent.cancelled.webhookId, 'delivered');
    expectInOrder(target.received.slice(before), resent.paymentFailed, resent.cancelled, 3);
  });

  it('a payment.failed whose claim was lost with its worker still holds the cancellation back until it is delivered', async () => {
    const target = await endpoint();
    const { queue, claim, startWorker } = await dispatcher({ timeoutMs: 300, leaseMarginMs: 200 });
    const { paymentFailed, cancelled } = prnRejection(target.url());
    await queue.enqueue([paymentFailed, cancelled]);
    expect((await claim(10)).map((claimed) => claimed.payload.eventName)).toEqual(['payment.failed']);
    // That worker is gone: nothing records its attempt.
    await forceDue(db(), cancelled);
    expect(await claim(10)).toEqual([]);

    startWorker();
    await settled(cancelled.webhookId, 'delivered');
    expectInOrder(target.received, paymentFailed, cancelled, 1);
  });
});

/** What the upgrade to the job queue meets, on the engines a release before it ran on. */
describeUpgradeScenarios(({ db, endpoint, dispatcher, settled }) => {
  it('the migration that gives an older release’s deliveries a job makes the cancellation due, never sent before the payment.failed is delivered', async () => {
    const target = await endpoint(byAttempt(status(500), status(500), status(200)));
    const { queue, startWorker } = await dispatcher();
    const { paymentFailed, cancelled } = prnRejection(target.url());
    await queue.enqueue([paymentFailed, cancelled]);
    // As a release before the job queue left them: no jobs, until the upgrade's migration runs.
    await CALLBACK_QUEUE.cancel(db(), [paymentFailed.webhookId, cancelled.webhookId]);
    for (const statement of ONTO_JOB_QUEUE.statements) await db().query(statement);
    await forceDue(db(), paymentFailed, cancelled);
    startWorker();

    await settled(cancelled.webhookId, 'delivered');
    expectInOrder(target.received, paymentFailed, cancelled, 3);
  });
});
