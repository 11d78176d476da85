import type { DeliveryView } from '@paygate/contracts';
import { attemptDueSoon } from './live-refresh';

const NOW = Date.parse('2026-11-27T10:00:00.000Z');
const delivery = (state: DeliveryView['state'], nextAttemptInMs: number | null): DeliveryView => ({
  webhook_id: 'msg_1',
  merchant_id: 'mer_1',
  internal_reference: 'PG7K3M9Q2X4T8V6B1N5R0D2F3H',
  event: 'transaction.completed',
  target_url: 'https://shop.example.com/hooks',
  state,
  next_attempt_at: nextAttemptInMs === null ? null : new Date(NOW + nextAttemptInMs).toISOString(),
  created_at: new Date(NOW).toISOString(),
  delivered_at: null,
  last_status: null,
  last_error: null,
  attempts: [],
});

describe('a collection page reloading itself', () => {
  it('reloads while an attempt is under way or due within 15 s (a Resend, a quick retry)', () => {
    expect(attemptDueSoon([delivery('delivering', null)], NOW)).toBe(true);
    expect(attemptDueSoon([delivery('delivered', null), delivery('pending', 0)], NOW)).toBe(true);
    expect(attemptDueSoon([delivery('pending', 15_000)], NOW)).toBe(true);
  });

  it('stops once every callback is settled or waits longer for its next attempt', () => {
    expect(attemptDueSoon([delivery('delivered', null), delivery('abandoned', null)], NOW)).toBe(false);
    expect(attemptDueSoon([delivery('pending', 15_001)], NOW)).toBe(false);
    expect(attemptDueSoon([], NOW)).toBe(false);
  });
});
