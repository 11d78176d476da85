import type { Logger } from '@paygate/logging';
import type { SqlDatabase } from '@paygate/sql';
import { eventually } from '@paygate/testing';
import type { DueTimer } from './leased-timers';
import { TimerWorker, type TimerVerdict } from './timer-worker';
import { future, onEveryEngine, past, type Kind } from './timers-test-setup';

function recordingLogger(warnings: { message: string; fields?: Record<string, unknown> }[]): Logger {
  const log: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (message, fields) => warnings.push({ message, fields }),
    error: () => undefined,
    child: () => log,
  };
  return log;
}

onEveryEngine('timer worker', (t) => {
  let worker: TimerWorker<Kind> | undefined;
  const warnings: { message: string; fields?: Record<string, unknown> }[] = [];
  const fired: DueTimer<Kind>[] = [];

  function startWorker(fire: (timer: DueTimer<Kind>) => Promise<TimerVerdict>, timers = t.timers): TimerWorker<Kind> {
    worker = new TimerWorker({
      timers,
      sql: t.db,
      fire: (timer) => {
        fired.push(timer);
        return fire(timer);
      },
      tickMs: 10,
      log: recordingLogger(warnings),
    });
    worker.start();
    return worker;
  }

  beforeEach(() => {
    warnings.length = 0;
    fired.length = 0;
  });
  afterEach(() => worker?.stop());

  it('fires each due timer once and forgets it when the fire is done', async () => {
    const dueAt = past();
    await t.timers.schedule(t.db, 'due', 'expiry', dueAt);
    await t.timers.schedule(t.db, 'later', 'expiry', future());
    startWorker(async () => ({ done: true }));

    await eventually(
      async () => ((await t.rows()).length === 1 ? true : undefined),
      15_000,
      'the fired timer to be deleted',
    );
    expect(fired).toEqual([expect.objectContaining({ internalReference: 'due', kind: 'expiry', dueAt })]);
    expect((await t.rows()).map((row) => row.internalReference)).toEqual(['later']);
  });

  it('fires a timer again at the time the fire asks for', async () => {
    await t.timers.schedule(t.db, 'polled', 'poll', past());
    startWorker(async () => (fired.length < 3 ? { done: false, retryAt: past() } : { done: true }));

    await eventually(
      async () => ((await t.rows()).length === 0 ? true : undefined),
      15_000,
      'the polled timer to be done',
    );
    expect(fired.map((timer) => timer.internalReference)).toEqual(['polled', 'polled', 'polled']);
  });

  it('logs a fire that throws and keeps the timer for a later retry', async () => {
    await t.timers.schedule(t.db, 'failing', 'expiry', past());
    startWorker(async () => {
      throw new Error('provider unreachable');
    });

    await eventually(() => (warnings.length > 0 ? true : undefined), 15_000, 'a warning');
    await worker?.stop();
    expect(warnings[0]).toEqual({
      message: 'timer failed; will retry',
      fields: {
        table: 'test_timers',
        internal_reference: 'failing',
        kind: 'expiry',
        error: expect.objectContaining({ message: 'provider unreachable' }),
      },
    });
    expect((await t.rows()).map((row) => row.internalReference)).toEqual(['failing']);
  });

  it('keeps ticking after a claim fails', async () => {
    // The database stops answering for a while, as during a cut: the claims fail, the worker goes on.
    let down = true;
    const flaky: SqlDatabase = Object.create(t.db, {
      query: {
        value: (text: string, params?: unknown[]) =>
          down ? Promise.reject(new Error('connection terminated')) : t.db.query(text, params),
      },
    });
    worker = new TimerWorker({
      timers: t.timers,
      sql: flaky,
      fire: async (timer) => (fired.push(timer), { done: true }),
      tickMs: 10,
      log: recordingLogger(warnings),
    });
    worker.start();
    await eventually(
      () => (warnings.some((warning) => warning.message === 'cannot claim due jobs') ? true : undefined),
      15_000,
      'a claim warning',
    );
    expect(warnings.find((warning) => warning.message === 'cannot claim due jobs')?.fields).toMatchObject({
      queue: 'test_timers',
    });

    await t.timers.schedule(t.db, 'after-outage', 'expiry', past());
    down = false;
    await eventually(() => (fired.length > 0 ? true : undefined), 15_000, 'the timer to fire');
    expect(fired.map((timer) => timer.internalReference)).toEqual(['after-outage']);
  });

  it('fires a timer that comes due while another fire is still under way', async () => {
    await t.timers.schedule(t.db, 'slow', 'poll', past());
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    startWorker(async (timer) => {
      if (timer.internalReference === 'slow') await finished;
      return { done: true };
    });
    await eventually(() => (fired.length > 0 ? true : undefined), 15_000, 'the slow fire to start');

    await t.timers.schedule(t.db, 'deadline', 'expiry', past());
    await eventually(
      async () => ((await t.rows()).every((row) => row.internalReference !== 'deadline') ? true : undefined),
      15_000,
      'the deadline to fire and be done',
    );
    expect(fired.map((timer) => timer.internalReference)).toEqual(['slow', 'deadline']);
    finish();
  });

  it('waits on stop for the fire under way, which still completes its timer', async () => {
    await t.timers.schedule(t.db, 'slow', 'expiry', past());
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    startWorker(async () => {
      await finished;
      return { done: true };
    });
    await eventually(() => (fired.length > 0 ? true : undefined), 15_000, 'the fire to start');

    let stopped = false;
    const stopping = worker!.stop().then(() => (stopped = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    finish();
    await stopping;
    expect(await t.rows()).toEqual([]);
  });
});
