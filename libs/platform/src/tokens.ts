/** Nest injection tokens for what the platform provides to every feature module. */
export const INFRASTRUCTURE = Symbol('Infrastructure');
export const LOGGER = Symbol('Logger');
export const APP_URL = Symbol('AppUrl');
/** The configuration (Config from @paygate/config), loaded once by runApp. */
export const CONFIG = Symbol('Config');
/** The RateLimiter (token buckets per merchant and per source address). */
export const RATE_LIMITER = Symbol('RateLimiter');
/** The Metrics port (@paygate/metrics) over the process's one registry, served on GET /metrics. */
export const METRICS = Symbol('Metrics');
/** The process's Drain (http/drain.ts): whether it is shutting down. */
export const DRAIN = Symbol('Drain');
