import type { CollectionActivityRow } from '@paygate/contracts';
import { activitySince, summarizeActivity } from './overview-stats';

const NOW = new Date('2026-11-27T15:30:00.000Z');
const row = (
  day: string,
  status: CollectionActivityRow['status'],
  count: number,
  amount: number,
  currency = 'UGX',
) => ({
  day,
  status,
  currency,
  count,
  amount,
});

describe('the overview figures', () => {
  it('asks for the period from the first instant of its first UTC day', () => {
    expect(activitySince(NOW, 30)).toBe('2026-10-29T00:00:00.000Z');
    expect(activitySince(NOW, 1)).toBe('2026-11-27T00:00:00.000Z');
  });

  it('counts today and the period, rates success over the finished ones, and sums what completed by currency', () => {
    const summary = summarizeActivity(
      [
        row('2026-11-01', 'COMPLETED', 3, 300_000),
        row('2026-11-01', 'COMPLETED', 1, 5_000, 'KES'),
        row('2026-11-01', 'FAILED', 1, 100_000),
        row('2026-11-27', 'COMPLETED', 1, 81_000),
        row('2026-11-27', 'CANCELLED', 1, 10_000),
        row('2026-11-27', 'PENDING', 2, 20_000),
      ],
      NOW,
      30,
    );
    expect(summary.today).toEqual({
      count: 4,
      completed: 1,
      finished: 2,
      successRate: 0.5,
      volume: [{ currency: 'UGX', amount: 81_000 }],
    });
    expect(summary.period).toMatchObject({ count: 9, completed: 5, finished: 7, successRate: 5 / 7 });
    expect(summary.period.volume).toEqual([
      { currency: 'UGX', amount: 381_000 },
      { currency: 'KES', amount: 5_000 },
    ]);
  });

  it('gives every day of the period, the empty ones too, oldest first', () => {
    const { days, today } = summarizeActivity([row('2026-11-26', 'FAILED', 2, 1_000)], NOW, 30);
    expect(days).toHaveLength(30);
    expect([days[0].day, days.at(-1)?.day]).toEqual(['2026-10-29', '2026-11-27']);
    expect(days.at(-2)).toEqual({
      day: '2026-11-26',
      outcomes: { PENDING: 0, COMPLETED: 0, FAILED: 2, CANCELLED: 0 },
      volume: {},
    });
    expect(today.successRate).toBeNull();
  });
});
