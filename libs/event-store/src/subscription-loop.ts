import type { EventSubscription, RecordedEvent } from './event-store';

export interface PollingSource {
  /** Next page after `after`, in global order. */
  readPage(after: string | null): Promise<RecordedEvent[]>;
  /** Resolves when new events may be visible, or after `maxWaitMs`. */
  waitForChange(maxWaitMs: number, signal: AbortSignal): Promise<void>;
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
      const page = await source.readPage(after);
      for (const event of page) {
        if (abort.signal.aborted) return;
        await handler(event);
        after = event.position;
      }
      if (page.length === 0) await source.waitForChange(pollIntervalMs, abort.signal);
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
