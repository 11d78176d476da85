import type { Metrics } from '@paygate/metrics';
import type { CollectionProjection } from './collection-projection';

export const OLDEST_PENDING_METRIC = 'paygate_collection_oldest_pending_age_seconds';

/**
 * Reports at every scrape how long the oldest collection still PENDING has been open, from collection_view (0: none
 * is). Every collection ends by its timers (confirmation, prompt, checkout), so one far older than the longest of them
 * is stuck: its provider never answered and its status timer stopped asking, or the projection is behind. The view
 * is shared, so every collections pod reports the same value (alert on max). Returns a function that stops reporting.
 */
export function reportOldestPending(
  metrics: Metrics,
  projection: Pick<CollectionProjection, 'oldestPendingSince'>,
  now: () => number = Date.now,
): () => void {
  return metrics.gauge({
    name: OLDEST_PENDING_METRIC,
    help: 'How long the oldest collection still PENDING has been open, in seconds (0: none is).',
    labelNames: [],
    read: async () => {
      const since = await projection.oldestPendingSince();
      return [{ labels: {}, value: since === null ? 0 : Math.max(0, (now() - Date.parse(since)) / 1000) }];
    },
  });
}
