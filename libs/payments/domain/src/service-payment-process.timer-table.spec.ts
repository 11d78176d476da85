/**
 * The service payment's timer table: what each event does to its durable timers (the projection
 * applies the changes in the event's own transaction).
 */
import { SERVICE_PAYMENT_EVENT_TYPES as EVENTS, type ServicePaymentEvent } from './events';
import { paymentTimerChanges } from './service-payment-process';

const POLL_MS = 5_000;
const T0 = '2026-03-01T10:00:00.000Z';
const later = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();
const event = (type: ServicePaymentEvent['type'], data: Record<string, unknown> = {}) =>
  ({ type, data }) as unknown as ServicePaymentEvent;

describe('the service payment timer table', () => {
  it('when the payment is requested, then a safety-net payment timer is scheduled one poll interval later', () => {
    expect(paymentTimerChanges(event(EVENTS.paymentRequested, { requestedAt: T0 }), POLL_MS)).toEqual([
      { type: 'Schedule', kind: 'payment', at: later(POLL_MS) },
    ]);
  });

  it('when an attempt fails, then the payment is retried at the attempt’s nextAttemptAt', () => {
    expect(paymentTimerChanges(event(EVENTS.attemptFailed, { nextAttemptAt: later(60_000) }), POLL_MS)).toEqual([
      { type: 'Schedule', kind: 'payment', at: later(60_000) },
    ]);
  });

  it('when the PRN lookup is deferred, then the lookup runs again at nextAttemptAt', () => {
    expect(paymentTimerChanges(event(EVENTS.prnValidationDeferred, { nextAttemptAt: later(30_000) }), POLL_MS)).toEqual(
      [{ type: 'Schedule', kind: 'validation', at: later(30_000) }],
    );
  });

  it('when the PRN is confirmed eligible, then no further lookup runs', () => {
    expect(paymentTimerChanges(event(EVENTS.prnConfirmed), POLL_MS)).toEqual([
      { type: 'Cancel', kinds: ['validation'] },
    ]);
  });

  it.each([EVENTS.completed, EVENTS.failed, EVENTS.prnRejected])(
    'when the payment ends (%s), then all its timers are cancelled',
    (type) => {
      expect(paymentTimerChanges(event(type), POLL_MS)).toEqual([{ type: 'Cancel' }]);
    },
  );

  it.each([EVENTS.opened, EVENTS.collectionSettled])(
    'when %s is recorded, then the timers stay as they are',
    (type) => {
      expect(paymentTimerChanges(event(type), POLL_MS)).toEqual([]);
    },
  );
});
