import { TimerWorker } from './timer-worker';
import { future, onBothEngines, past } from './timers-test-setup';
import { eventually } from '@paygate/testing';

const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined, child: () => quiet };

/**
 * Before the job queue, timers were rows of their own table; an upgrade must lose none of them,
 * including those an older pod still writes there during a rolling upgrade.
 */
onBothEngines('timers an older release left in the timer table', (t) => {
  const legacy = (ref: string, kind: string, at: Date) =>
    t.db.query('insert into test_timers (internal_reference, kind, due_at, fire_at) values ($1, $2, $3, $3)', [ref, kind, at]);
  let worker: TimerWorker<'expiry' | 'poll'> | undefined;
  afterEach(async () => {
    await worker?.stop();
    await t.db.query('delete from test_timers');
  });

  it('fires each of them once it is due, keeping when it was due, and keeps the later ones for their time', async () => {
    const dueAt = past(60_000);
    await legacy('old-due', 'expiry', dueAt);
    await legacy('old-later', 'poll', future());
    const fired: { internalReference: string; kind: string; dueAt: Date }[] = [];
    worker = new TimerWorker({ timers: t.timers, sql: t.db, fire: async (timer) => (fired.push(timer), { done: true }), tickMs: 10, log: quiet });
    worker.start();

    await eventually(() => (fired.length > 0 ? true : undefined), 15_000, 'the adopted timer to fire');
    await worker.stop();
    expect(fired).toEqual([expect.objectContaining({ internalReference: 'old-due', kind: 'expiry', dueAt })]);
    expect(await t.rows()).toEqual([{ internalReference: 'old-later', kind: 'poll', dueAt: expect.any(Date) }]);
    expect(await t.db.query('select * from test_timers')).toEqual([]);
  });

  it('keeps a timer already on the queue when an older pod wrote the same one', async () => {
    const onQueue = future(1_000);
    await t.timers.schedule(t.db, 'both', 'poll', onQueue);
    await legacy('both', 'poll', future(7_200_000));
    await t.timers.adopt(t.db);
    expect(await t.rows()).toEqual([{ internalReference: 'both', kind: 'poll', dueAt: onQueue }]);
  });

  it('can be cancelled once adopted, as the events that follow ask', async () => {
    await legacy('cancelled', 'expiry', future());
    await t.timers.adopt(t.db);
    await t.db.transaction((tx) => t.timers.apply(tx, [{ internalReference: 'cancelled', changes: [{ type: 'Cancel' }] }]));
    expect(await t.rows()).toEqual([]);
  });
});
