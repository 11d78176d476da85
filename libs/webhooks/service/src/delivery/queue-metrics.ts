import type { Metrics } from '@paygate/metrics';
import type { DeliveryStore, QueueStats } from './delivery-store';

/** One query answers both gauges of a scrape. */
const STATS_REUSE_MS = 1_000;

/**
 * Reports the delivery queue at every scrape: `paygate_callback_queue_depth{state}` and
 * `paygate_callback_oldest_due_age_seconds`. The queue is shared, so every dispatcher reports
 * the same numbers (alert on max). Returns a function that stops reporting.
 */
export function reportQueue(metrics: Metrics, store: DeliveryStore): () => void {
  let last: { at: number; stats: Promise<QueueStats> } | undefined;
  const stats = () => {
    if (!last || Date.now() - last.at > STATS_REUSE_MS) last = { at: Date.now(), stats: store.queueStats() };
    return last.stats;
  };
  const stopDepth = metrics.gauge({
    name: 'paygate_callback_queue_depth',
    help: 'Callbacks waiting to be sent (pending: scheduled or due) and being sent (delivering).',
    labelNames: ['state'],
    read: async () => {
      const { pending, delivering } = await stats();
      return [
        { labels: { state: 'pending' }, value: pending },
        { labels: { state: 'delivering' }, value: delivering },
      ];
    },
  });
  const stopAge = metrics.gauge({
    name: 'paygate_callback_oldest_due_age_seconds',
    help: 'How long the oldest callback that is due has waited to be claimed (0: none is waiting).',
    labelNames: [],
    read: async () => [{ labels: {}, value: (await stats()).oldestDueSeconds }],
  });
  return () => {
    stopDepth();
    stopAge();
  };
}
