import type { Config } from '@paygate/config';

/**
 * The delivery settings (CALLBACK_TIMEOUT_MS, CALLBACK_RETRY_SCHEDULE, ALLOW_PRIVATE_CALLBACKS,
 * CALLBACK_CONCURRENCY_PER_HOST, CALLBACK_MAX_IN_FLIGHT, DISPATCH_TICK_MS): the configuration's
 * delivery section.
 * timeoutMs is one attempt, connect to response; attempt n waits retrySchedule[n - 1] and after
 * the last the callback is abandoned; allowPrivate lets callbacks reach loopback/private
 * addresses (the sandbox, tests); perHostConcurrency bounds attempts in flight to one host
 * across all dispatchers; maxInFlight bounds one dispatcher's attempts, all hosts together; tickMs
 * is how often a worker looks for due deliveries unprompted.
 */
export type DeliveryConfig = Config['delivery'];

/** ±10% so that deliveries failing together (one receiver outage) do not retry in lockstep. */
export function jittered(delayMs: number, random: () => number = Math.random): number {
  if (delayMs === 0) return 0;
  return Math.round(delayMs * (0.9 + 0.2 * random()));
}
