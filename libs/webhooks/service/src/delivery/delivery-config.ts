import { ConfigError, readDurationMs } from '@paygate/platform';

export interface DeliveryConfig {
  /** One attempt, connect to response, in ms. */
  timeoutMs: number;
  /** Delay before each attempt in ms: attempt n waits retrySchedule[n - 1]; after the last, abandoned. */
  retrySchedule: number[];
  /** Send to loopback/private/link-local addresses (the sandbox, tests). */
  allowPrivate: boolean;
  /** Most attempts in flight to one host, across all dispatcher processes. */
  perHostConcurrency: number;
  /** How often a worker looks for due deliveries when nothing wakes it. */
  tickMs: number;
}

type Env = Record<string, string | undefined>;

export const DEFAULT_RETRY_SCHEDULE = '0s,10s,1m,5m,30m,2h,5h,10h,14h,20h,24h';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
const DURATION = /^(\d+)(ms|s|m|h)?$/;

export function readDeliveryConfig(env: Env = process.env): DeliveryConfig {
  return {
    timeoutMs: readPositiveMs(env, 'CALLBACK_TIMEOUT_MS', 10_000),
    retrySchedule: readSchedule(env, 'CALLBACK_RETRY_SCHEDULE'),
    allowPrivate: readBoolean(env, 'ALLOW_PRIVATE_CALLBACKS', false),
    perHostConcurrency: readPositiveInteger(env, 'CALLBACK_CONCURRENCY_PER_HOST', 4),
    tickMs: readPositiveMs(env, 'DISPATCH_TICK_MS', 100),
  };
}

/** "250ms", "10s", "1m", "2h", or a bare number of milliseconds; undefined when malformed. */
export function parseDurationMs(text: string): number | undefined {
  const match = DURATION.exec(text.trim());
  if (!match) return undefined;
  const value = Number(match[1]) * UNIT_MS[match[2] ?? 'ms'];
  return Number.isSafeInteger(value) ? value : undefined;
}

/** ±10% so that deliveries failing together (one receiver outage) do not retry in lockstep. */
export function jittered(delayMs: number, random: () => number = Math.random): number {
  if (delayMs === 0) return 0;
  return Math.round(delayMs * (0.9 + 0.2 * random()));
}

function readSchedule(env: Env, variable: string): number[] {
  const raw = env[variable] || DEFAULT_RETRY_SCHEDULE;
  return raw.split(',').map((entry) => {
    const ms = parseDurationMs(entry);
    if (ms === undefined) {
      throw new ConfigError(variable, `must be a comma-separated list of durations like "0s,10s,1m,2h" (units ms, s, m, h), got "${raw}"`);
    }
    return ms;
  });
}

function readPositiveMs(env: Env, variable: string, fallback: number): number {
  const value = readDurationMs(env, variable, fallback);
  if (value === 0) throw new ConfigError(variable, 'must be at least 1 millisecond, got "0"');
  return value;
}

function readPositiveInteger(env: Env, variable: string, fallback: number): number {
  const raw = env[variable];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 1) throw new ConfigError(variable, `must be a positive whole number, got "${raw}"`);
  return value;
}

function readBoolean(env: Env, variable: string, fallback: boolean): boolean {
  const raw = env[variable];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw new ConfigError(variable, `must be "true" or "false", got "${raw}"`);
}
