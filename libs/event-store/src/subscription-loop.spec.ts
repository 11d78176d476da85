import { AppendSignal } from './subscription-loop';

/** Whether `promise` has settled once the microtasks queued so far have run (no event-loop turn). */
async function settledWithoutATurn(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(() => (settled = true));
  for (let i = 0; i < 10; i++) await Promise.resolve();
  return settled;
}

describe('AppendSignal', () => {
  afterEach(() => jest.useRealTimers());

  it('wakes a waiter on an append without waiting for a timer or an event-loop turn', async () => {
    const appends = new AppendSignal();
    const woken = appends.wait(appends.changeCount, 0, 60_000, new AbortController().signal);
    expect(await settledWithoutATurn(woken)).toBe(false);
    appends.notify();
    expect(await settledWithoutATurn(woken)).toBe(true);
    await expect(woken).resolves.toBe(true);
  });

  it('resolves at once when an append came after `since`, before the wait began', async () => {
    const appends = new AppendSignal();
    const since = appends.changeCount;
    appends.notify();
    const woken = appends.wait(since, 0, 60_000, new AbortController().signal);
    expect(await settledWithoutATurn(woken)).toBe(true);
  });

  it('holds an append inside the interval, and lets a later append end the wait once the interval is over, with no timer run', async () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const appends = new AppendSignal();
    const woken = appends.wait(appends.changeCount, Date.now() + 10, 60_000, new AbortController().signal);
    appends.notify();
    expect(await settledWithoutATurn(woken)).toBe(false);
    // The clock moves on but no timer runs: a busy event loop. The next append ends the wait.
    jest.setSystemTime(1_000_010);
    appends.notify();
    expect(await settledWithoutATurn(woken)).toBe(true);
    await expect(woken).resolves.toBe(true);
  });

  it('ends the wait by timer when the interval is over and no further append comes', async () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const appends = new AppendSignal();
    const woken = appends.wait(appends.changeCount, Date.now() + 10, 60_000, new AbortController().signal);
    appends.notify();
    jest.advanceTimersByTime(10);
    await expect(woken).resolves.toBe(true);
  });

  it('answers false after the poll interval without an append, and on abort', async () => {
    jest.useFakeTimers();
    const appends = new AppendSignal();
    const polled = appends.wait(appends.changeCount, 0, 20, new AbortController().signal);
    jest.advanceTimersByTime(20);
    await expect(polled).resolves.toBe(false);

    const abort = new AbortController();
    const aborted = appends.wait(appends.changeCount, 0, 60_000, abort.signal);
    abort.abort();
    await expect(aborted).resolves.toBe(false);
    appends.notify(); // a waiter that has gone is not called
  });
});
