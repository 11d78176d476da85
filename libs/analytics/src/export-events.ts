import type { EventStore } from '@paygate/event-store';
import { selectEvents, type EventSelection } from './event-selection';
import { toExportedEvent } from './exported-event';
import type { EventSink } from './sinks';

export interface ExportResult {
  exported: number;
  /** Position of the last event written, or null when none was: resume with `--after` it. */
  lastPosition: string | null;
  /** True when `signal` stopped the export before the selection ended. */
  interrupted: boolean;
}

export interface ExportOptions {
  signal?: AbortSignal;
  /** Called every `progressEvery` events, once they are out of the process (flushed). */
  onProgress?: (progress: Omit<ExportResult, 'interrupted'>) => void;
  progressEvery?: number;
}

/**
 * Writes the selected events to `sink` in global order. A position reported (by onProgress or
 * the result) is one whose event and every event before it have left the process, so an export
 * stopped at any point resumes with `--after <that position>` and yields every event once.
 */
export async function exportEvents(
  store: EventStore,
  selection: EventSelection,
  sink: EventSink,
  options: ExportOptions = {},
): Promise<ExportResult> {
  const progressEvery = options.progressEvery ?? 10_000;
  let exported = 0;
  let lastPosition: string | null = null;
  try {
    for await (const event of selectEvents(store, selection, options.signal)) {
      await sink.write(toExportedEvent(event));
      exported += 1;
      lastPosition = event.position;
      if (options.onProgress && exported % progressEvery === 0) {
        await sink.flush();
        options.onProgress({ exported, lastPosition });
      }
    }
  } finally {
    await sink.close();
  }
  return { exported, lastPosition, interrupted: options.signal?.aborted ?? false };
}
