import type { EventSubscription, RecordedEvent } from './event-store';

export interface PollingSource {
  /**
   * The subscriber's events in the next page after `after`, in global order, and the position
   * the page ended at: a subscriber whose streams are rare still moves past everyone else's
   * events instead of scanning them again on every read.
   */
  readPage(after: string | null): Promise<{ events: RecordedEvent[]; end: string | null; full: boolean }>;
  /** Resolves when new events may be visible, or after `maxWaitMs`. */
  waitForChange(maxWaitMs: number, signal: AbortSignal): Promise<void>;
  /** Changes whenever this process appends: an unchanged value means nothing new was written here. */
  changeCount(): number;
}

/**
 * Catch-up-then-live loop over a pull source: reads pages, hands events to the handler one at
 * a time, and waits for a change (or a poll tick) when caught up.
 */
export function runSubscriptionLoop(
  source: PollingSource,
  start: string | null,
  pollIntervalMs: number,
  handler: (event: RecordedEvent) => Promise<void>,
): EventSubscription {
  const abort = new AbortController();
  const ended = (async () => {
    let after = start;
    while (!abort.signal.aborted) {
      const changesBeforeRead = source.changeCount();
      const page = await source.readPage(after);
      for (const event of page.events) {
        if (abort.signal.aborted) return;
        await handler(event);
      }
      after = page.end;
      // A short page with no local append since the read means caught up: wait instead of
      // reading an empty page (under load this halves the reads per event). Appends of other
      // processes are found by the poll.
      if (!page.full && source.changeCount() === changesBeforeRead) await source.waitForChange(pollIntervalMs, abort.signal);
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
