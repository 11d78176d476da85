import { defineMigrations, migrate } from '@paygate/sql';
import { eventually } from '@paygate/testing';
import { timerAdoptionStatements } from './leased-timers';
import { TimerWorker } from './timer-worker';
import { future, onEnginesOfOlderReleases, past } from './timers-test-setup';

const quiet = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => quiet,
};

/**
 * Before the job queue, timers were rows of their own table; the upgrade's migration moves them
 * onto the queue (collections/0002 and payments/0002 carry timerAdoptionStatements), losing none,
 * including those the older pods still write during a rolling upgrade.
 */
onEnginesOfOlderReleases('timers an older release left in the timer table', (t) => {
  // The older release's schedule, word for word: an upsert that replaces the timer of that kind.
  const legacy = (ref: string, kind: string, at: Date) =>
    t.db.query(
      `insert into test_timers (internal_reference, kind, due_at, fire_at) values ($1, $2, $3, $3)
       on conflict (internal_reference, kind) do update set due_at = excluded.due_at, fire_at = excluded.fire_at`,
      [ref, kind, at],
    );
  // Each test upgrades anew: a migration applies once per owner, so each gets an owner of its own.
  let upgrades = 0;
  const upgrade = () =>
    migrate(
      t.db,
      defineMigrations(`test-timers-${++upgrades}`, [
        { name: '0001_onto_job_queue', statements: timerAdoptionStatements('test_timers') },
      ]),
    );
  let worker: TimerWorker<'expiry' | 'poll'> | undefined;
  afterEach(async () => {
    await worker?.stop();
    // The next test starts as a database before its upgrade.
    await t.db.query('drop trigger if exists test_timers_onto_job_queue on test_timers');
    await t.db.query('delete from test_timers');
  });
  /** Starts the worker on the queue, ticking fast; the list it returns fills with what it fires. */
  const startWorker = () => {
    const fired: { internalReference: string; kind: string; dueAt: Date }[] = [];
    worker = new TimerWorker({
      timers: t.timers,
      sql: t.db,
      fire: async (timer) => (fired.push(timer), { done: true }),
      tickMs: 10,
      log: quiet,
    });
    worker.start();
    return fired;
  };

  it('fires each of them once it is due, keeping when it was due, and keeps the later ones for their time', async () => {
    const dueAt = past(60_000);
    await legacy('old-due', 'expiry', dueAt);
    await legacy('old-later', 'poll', future());
    await upgrade();
    const fired = startWorker();
    await eventually(() => (fired.length > 0 ? true : undefined), 15_000, 'the adopted timer to fire');
    await worker?.stop();
    expect(fired).toEqual([expect.objectContaining({ internalReference: 'old-due', kind: 'expiry', dueAt })]);
    expect(await t.rows()).toEqual([{ internalReference: 'old-later', kind: 'poll', dueAt: expect.any(Date) }]);
    expect(await t.db.query('select * from test_timers')).toEqual([]);
  });

  it('keeps a timer already on the queue when the older release left the same one', async () => {
    const onQueue = future(1_000);
    await t.timers.schedule(t.db, 'both', 'poll', onQueue);
    await legacy('both', 'poll', future(7_200_000));
    await upgrade();
    expect(await t.rows()).toEqual([{ internalReference: 'both', kind: 'poll', dueAt: onQueue }]);
  });

  it('can be cancelled once adopted, as the events that follow ask', async () => {
    await legacy('cancelled', 'expiry', future());
    await upgrade();
    await t.db.transaction((tx) =>
      t.timers.apply(tx, [{ internalReference: 'cancelled', changes: [{ type: 'Cancel' }] }]),
    );
    expect(await t.rows()).toEqual([]);
  });

  it('puts a timer an older pod schedules after the upgrade on the queue, replacing the one there, and fires it', async () => {
    await upgrade();
    await t.timers.schedule(t.db, 'rolling', 'poll', future());
    const dueAt = past(1_000);
    await legacy('rolling', 'poll', dueAt);
    await legacy('rolling-later', 'expiry', future());
    expect(await t.db.query('select * from test_timers')).toEqual([]);
    expect(await t.rows()).toEqual([
      { internalReference: 'rolling', kind: 'poll', dueAt },
      { internalReference: 'rolling-later', kind: 'expiry', dueAt: expect.any(Date) },
    ]);

    const fired = startWorker();
    await eventually(() => (fired.length > 0 ? true : undefined), 15_000, 'the timer an older pod scheduled to fire');
    expect(fired).toEqual([expect.objectContaining({ internalReference: 'rolling', kind: 'poll', dueAt })]);
  });
});
