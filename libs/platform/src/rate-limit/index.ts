export {
  enforceRateLimit,
  limitOutsideControllers,
  NotRateLimited,
  RateLimitedAs,
  sourceAddress,
  SourceRateLimitGuard,
} from './rate-limit.guard';
export {
  PRUNE_EVERY_MS as RATE_LIMIT_PRUNE_EVERY_MS,
  RateLimiter,
  TooManyRequests,
  type RateLimitClass,
  type RateLimitConfig,
  type RateLimitVerdict,
} from './rate-limiter';
export { RATE_LIMIT_MIGRATIONS } from './migrations';
export { MemoryRateLimitStore, SqlRateLimitStore, type RateLimitStore, type StoreTake } from './rate-limit-store';
export { sourceAddressKey } from './source-address';
export * from './token-bucket';
