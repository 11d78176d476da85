import type { EventSubscription, PageHandler, RecordedEvent } from './event-store';

/**
 * Counts this process's appends and wakes the subscriptions waiting for one. The append itself
 * wakes a due waiter (a resolved promise): a timer only fires when the event loop gets round
 * to its timers phase, and writers whose statements complete without I/O (PGlite runs a
 * statement synchronously inside its promise) can keep it from getting there for as long as
 * they write. Timers only end waits that no append ends: the poll, and the rest of a read
 * interval after the last append.
 */
export class AppendSignal {
  private count = 0;
  private readonly waiters = new Set<() => void>();

  /** Changes with every append of this process: an unchanged value means nothing new was written here. */
  get changeCount(): number {
    return this.count;
  }

  /** Called by the store after each successful append. */
  notify(): void {
    this.count++;
    for (const waiter of this.waiters) waiter();
  }

  /**
   * Resolves `true` once the change count differs from `since` (at once if it already does)
   * and the clock has reached `notBefore`; `false` after `maxWaitMs` without a change, or on
   * abort.
   *
   * An append inside the window before `notBefore` arms a timer for the rest of it, and every
   * further append checks the clock too, so a busy event loop delays the read by at most the
   * time to the next append.
   */
  wait(since: number, notBefore: number, maxWaitMs: number, signal: AbortSignal): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      if (signal.aborted) return resolve(false);
      let timer: NodeJS.Timeout | undefined;
      let armed = false;
      const done = (changed: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        signal.removeEventListener('abort', aborted);
        resolve(changed);
      };
      const aborted = () => done(false);
      const check = () => {
        if (this.count === since) return;
        const left = notBefore - Date.now();
        if (left <= 0) return done(true);
        if (!armed) {
          armed = true;
          clearTimeout(timer);
          timer = setTimeout(() => done(true), left);
        }
      };
      timer = setTimeout(() => done(false), maxWaitMs);
      this.waiters.add(check);
      signal.addEventListener('abort', aborted, { once: true });
      check();
    });
  }
}

export interface PollingSource {
  /**
   * The subscriber's events in the next page after `after`, in global order, and the position
   * the page ended at: a subscriber whose streams are rare still moves past everyone else's
   * events instead of scanning them again on every read. `live` when the previous page was
   * short: the subscription follows the tail rather than catching up a backlog. `asOf`, the
   * append count the page is current as of, when it is not the count as the call began (a page
   * another subscription's read brought). `heldBack` when committed events exist that the page
   * could not include yet (an older transaction still runs), so no notification will bring them.
   */
  readPage(
    after: string | null,
    live: boolean,
  ): Promise<{ events: RecordedEvent[]; end: string | null; full: boolean; heldBack?: boolean; asOf?: number }>;
  /** Appends: this process's, and those of others as their notifications arrive (the poll is a fallback). */
  appends: AppendSignal;
}

export interface SubscriptionTiming {
  /** How long a caught-up subscription waits without a local append before it reads anyway. */
  pollIntervalMs: number;
  /**
   * Reads of a subscription start at least this far apart while appends keep coming: the
   * events of every append in between share one read. An append after a quiet spell is read
   * at once.
   */
  minReadIntervalMs: number;
}

/**
 * While committed events are held back, the next read comes after this long, doubling up to
 * HELD_BACK_MAX_MS while they stay held back (a long transaction elsewhere on the server).
 */
const HELD_BACK_FIRST_MS = 10;
const HELD_BACK_MAX_MS = 1_000;

/**
 * Catch-up-then-live loop over a pull source: reads pages, hands each page's events to the
 * handler at once, and waits for a local append (or a poll tick) when caught up.
 */
export function runSubscriptionLoop(
  source: PollingSource,
  start: string | null,
  timing: SubscriptionTiming,
  handler: PageHandler,
): EventSubscription {
  const abort = new AbortController();
  const ended = (async () => {
    let after = start;
    let wokenByAppend = false;
    let live = false;
    let heldBackWaitMs = 0;
    while (!abort.signal.aborted) {
      // Appends counted before the read started are in it, or held back by an older transaction
      // that is still running: then the page says so and the loop looks again soon.
      const changesBeforeRead = source.appends.changeCount;
      const readStarted = Date.now();
      const page = await source.readPage(after, live);
      if (abort.signal.aborted) return;
      const currentAsOf = page.asOf ?? changesBeforeRead;
      if (page.events.length > 0) await handler(page.events);
      after = page.end;
      live = !page.full;
      if (page.full) continue;
      // Caught up as of the read: the next read waits for an append since it started (one may
      // already have come). While appends keep coming it also waits out the interval, so one
      // read covers every append of the interval instead of one read per append taking turns
      // with the writers; the first append after a quiet spell is read at once.
      const notBefore = wokenByAppend ? readStarted + timing.minReadIntervalMs : 0;
      heldBackWaitMs = page.heldBack ? Math.min(Math.max(heldBackWaitMs * 2, HELD_BACK_FIRST_MS), HELD_BACK_MAX_MS) : 0;
      const maxWaitMs = page.heldBack ? heldBackWaitMs : timing.pollIntervalMs;
      wokenByAppend = await source.appends.wait(currentAsOf, notBefore, maxWaitMs, abort.signal);
    }
  })();
  ended.catch(() => undefined); // observed through `ended`; never an unhandled rejection
  return {
    ended,
    async stop() {
      abort.abort();
      await ended.catch(() => undefined);
    },
  };
}
