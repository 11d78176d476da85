import type { Metrics } from '@paygate/metrics';
import type { DisbursementsProjection } from './disbursements-projection';

export const OLDEST_PENDING_MONEY_OUT_METRIC = 'paygate_money_out_oldest_pending_age_seconds';
export const MONEY_OUT_ATTENTION_METRIC = 'paygate_money_out_needs_attention';
export const MONEY_OUT_FINISHED_METRIC = 'paygate_money_out_finished_total';

const label = (kind: string) => kind.toLowerCase();

/**
 * Reports at every scrape, per kind (refund, payout), how long the oldest money-out still PENDING has waited for its
 * provider (0: none is) and how many are flagged for attention, from money_out_view: held money whose outcome is
 * unknown. The view is shared, so every service-payments pod reports the same values (alert on max). Returns a
 * function that stops reporting.
 */
export function reportPendingMoneyOut(
  metrics: Metrics,
  projection: Pick<DisbursementsProjection, 'pendingByKind'>,
  now: () => number = Date.now,
): () => void {
  const read = () => projection.pendingByKind();
  const stopAge = metrics.gauge({
    name: OLDEST_PENDING_MONEY_OUT_METRIC,
    help: 'How long the oldest refund or payout still PENDING has waited for its provider, in seconds (0: none is).',
    labelNames: ['kind'],
    read: async () =>
      (await read()).map(({ kind, oldestPendingSince }) => ({
        labels: { kind: label(kind) },
        value: oldestPendingSince === null ? 0 : Math.max(0, (now() - Date.parse(oldestPendingSince)) / 1000),
      })),
  });
  const stopAttention = metrics.gauge({
    name: MONEY_OUT_ATTENTION_METRIC,
    help: 'Refunds and payouts still unconfirmed by their provider after MONEY_OUT_ATTENTION_AFTER_MS (needs attention).',
    labelNames: ['kind'],
    read: async () =>
      (await read()).map(({ kind, needsAttention }) => ({ labels: { kind: label(kind) }, value: needsAttention })),
  });
  return () => {
    stopAge();
    stopAttention();
  };
}

/** Counts refunds and payouts as they end, by kind and final status (completed, failed). */
export function finishedMoneyOut(metrics: Metrics): (kind: string, status: string) => void {
  const finished = metrics.counter({
    name: MONEY_OUT_FINISHED_METRIC,
    help: 'Refunds and payouts that reached a final status, by kind and status.',
    labelNames: ['kind', 'status'],
  });
  return (kind, status) => finished.inc({ kind: label(kind), status: status.toLowerCase() });
}
