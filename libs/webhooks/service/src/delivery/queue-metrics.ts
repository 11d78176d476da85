import type { Metrics } from '@paygate/metrics';
import type { SqlDatabase } from '@paygate/sql';
import { webhooksDialect } from './webhooks-dialect';

export interface QueueStats {
  pending: number;
  delivering: number;
  /** Age of the oldest delivery due now and not yet claimed; 0 when none is. */
  oldestDueSeconds: number;
}

/** The queue as an operator sees it: deliveries waiting or in flight, and how long the oldest due one has waited. */
export async function queueStats(sql: SqlDatabase): Promise<QueueStats> {
  const [row] = await sql.query<{ pending: number; delivering: number; oldest_due_seconds: number | null }>(
    webhooksDialect(sql).queueStats,
  );
  return {
    pending: row.pending,
    delivering: row.delivering,
    oldestDueSeconds: Math.max(0, row.oldest_due_seconds ?? 0),
  };
}

/** One query answers both gauges of a scrape. */
const STATS_REUSE_MS = 1_000;

/**
 * Reports the delivery queue at every scrape: `paygate_callback_queue_depth{state}` and
 * `paygate_callback_oldest_due_age_seconds`. The queue is shared, so every dispatcher reports
 * the same numbers (alert on max). Returns a function that stops reporting.
 */
export function reportQueue(metrics: Metrics, sql: SqlDatabase): () => void {
  let last: { at: number; stats: Promise<QueueStats> } | undefined;
  const stats = () => {
    if (!last || Date.now() - last.at > STATS_REUSE_MS) last = { at: Date.now(), stats: queueStats(sql) };
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
