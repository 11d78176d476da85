import type { DeliveryView } from '@paygate/contracts';

/** A collection page reloads itself while a callback attempt is due this soon (a resend, a retry). */
const LIVE_WITHIN_MS = 15_000;

/** Whether an attempt is being made, or is due within LIVE_WITHIN_MS: the page then reloads to show it. */
export function attemptDueSoon(deliveries: DeliveryView[], now: number): boolean {
  return deliveries.some(
    (delivery) =>
      delivery.state === 'delivering' ||
      (delivery.state === 'pending' &&
        (delivery.next_attempt_at === null || Date.parse(delivery.next_attempt_at) <= now + LIVE_WITHIN_MS)),
  );
}
