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

/**
 * What follows the `attempt`th attempt of a delivery's round: 2xx delivered, 410 abandoned (the
 * receiver says the endpoint is gone), otherwise the next step of the schedule (or the receiver's
 * Retry-After, if later) and, after the last step, abandoned.
 */
export function afterAttempt(
  outcome: { statusCode?: number; retryAfterMs?: number },
  attempt: number,
  retrySchedule: readonly number[],
  random: () => number = Math.random,
): { state: 'delivered' | 'abandoned' | 'pending'; delayMs: number } {
  const status = outcome.statusCode;
  if (status !== undefined && status >= 200 && status < 300) return { state: 'delivered', delayMs: 0 };
  if (status === 410 || attempt >= retrySchedule.length) return { state: 'abandoned', delayMs: 0 };
  return { state: 'pending', delayMs: Math.max(jittered(retrySchedule[attempt], random), outcome.retryAfterMs ?? 0) };
}

/** The host deliveries are grouped by for isolation, or why the URL can never be sent to. */
export function sendableTarget(targetUrl: string | null): { host: string | null; problem: string | null } {
  if (targetUrl === null) return { host: null, problem: 'no callback URL' };
  let url: URL;
  try {
    url = new URL(targetUrl);
  } catch {
    return { host: null, problem: 'callback URL is not a valid URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { host: null, problem: 'callback URL is not http: or https:' };
  return { host: url.hostname, problem: null };
}
