import type { CollectionActivityRow, CollectionStatus } from '@paygate/contracts';

/** A period's collections: how many, how many of the finished ones completed, and what completed by currency. */
export interface PeriodSummary {
  count: number;
  completed: number;
  /** Completed, failed or cancelled: the ones with an outcome. */
  finished: number;
  /** completed / finished, or null while none has finished. */
  successRate: number | null;
  /** Completed amounts by currency, integer minor units, largest first. */
  volume: Array<{ currency: string; amount: number }>;
}

export interface DaySummary {
  /** YYYY-MM-DD, UTC. */
  day: string;
  outcomes: Record<CollectionStatus, number>;
  /** Completed amounts by currency, integer minor units. */
  volume: Record<string, number>;
}

export interface ActivitySummary {
  today: PeriodSummary;
  period: PeriodSummary;
  /** Every day of the period, oldest first, days without collections included. */
  days: DaySummary[];
}

const DAY_MS = 86_400_000;

/** The first instant of the period that ends with `now`'s UTC day and spans `days` days: what to ask for. */
export function activitySince(now: Date, days: number): string {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return new Date(today - (days - 1) * DAY_MS).toISOString();
}

function summarize(rows: CollectionActivityRow[]): PeriodSummary {
  const volume = new Map<string, number>();
  let count = 0;
  let completed = 0;
  let finished = 0;
  for (const row of rows) {
    count += row.count;
    if (row.status !== 'PENDING') finished += row.count;
    if (row.status !== 'COMPLETED') continue;
    completed += row.count;
    volume.set(row.currency, (volume.get(row.currency) ?? 0) + row.amount);
  }
  return {
    count,
    completed,
    finished,
    successRate: finished === 0 ? null : completed / finished,
    volume: [...volume].map(([currency, amount]) => ({ currency, amount })).sort((a, b) => b.amount - a.amount),
  };
}

/** Today's and the period's figures and the period day by day, from the collections counted since activitySince. */
export function summarizeActivity(rows: CollectionActivityRow[], now: Date, days: number): ActivitySummary {
  const first = Date.parse(activitySince(now, days));
  const byDay = new Map<string, DaySummary>();
  for (let i = 0; i < days; i++) {
    const day = new Date(first + i * DAY_MS).toISOString().slice(0, 10);
    byDay.set(day, { day, outcomes: { PENDING: 0, COMPLETED: 0, FAILED: 0, CANCELLED: 0 }, volume: {} });
  }
  for (const row of rows) {
    const day = byDay.get(row.day);
    if (!day) continue;
    day.outcomes[row.status] += row.count;
    if (row.status === 'COMPLETED') day.volume[row.currency] = (day.volume[row.currency] ?? 0) + row.amount;
  }
  const today = now.toISOString().slice(0, 10);
  return {
    today: summarize(rows.filter((row) => row.day === today)),
    period: summarize(rows.filter((row) => byDay.has(row.day))),
    days: [...byDay.values()],
  };
}
