import { HttpException, HttpStatus, type OnModuleDestroy } from '@nestjs/common';
import type { Config } from '@paygate/config';
import type { SqlDatabase } from '@paygate/sql';
import { MemoryRateLimitStore, SqlRateLimitStore, type RateLimitStore } from './rate-limit-store';
import { quotaAt, type BucketPolicy } from './token-bucket';

/**
 * Who a bucket belongs to: `merchant` (the authenticated merchant), or a source address on
 * `public` routes (pages, admin, docs, failed authentications) or `provider` routes
 * (machine-to-machine: provider callbacks, the sandbox's provider APIs).
 */
export type RateLimitClass = 'merchant' | 'public' | 'provider';

export type RateLimitConfig = Config['rateLimits'];

/**
 * How often full buckets are forgotten, when this process took a token since it last looked: an idle process issues no
 * statement for them (a bucket not yet full then waits for the next prune after traffic; a stale row changes no verdict).
 */
export const PRUNE_EVERY_MS = 10_000;

/**
 * The headers of draft-ietf-httpapi-ratelimit-headers-06: the bucket's capacity, what is left
 * after this request, seconds until it is full again, and the policy (capacity; w = seconds to
 * refill from empty).
 */
function rateLimitHeaders(
  fullAtMs: number,
  policy: BucketPolicy,
  nowMs: number,
  allowed: boolean,
): Record<string, string> {
  const quota = quotaAt(fullAtMs, policy, nowMs);
  return {
    'RateLimit-Limit': String(quota.limit),
    'RateLimit-Remaining': String(allowed ? quota.remaining : 0),
    'RateLimit-Reset': String(quota.resetSeconds),
    'RateLimit-Policy': `${quota.limit};w=${quota.windowSeconds}`,
    ...(!allowed && { 'Retry-After': String(quota.retryAfterSeconds) }),
  };
}

export interface RateLimitVerdict {
  allowed: boolean;
  /** Set on the response whatever the verdict (none when limits are off). */
  headers: Record<string, string>;
}

/** 429 in the envelope; its headers are already on the response. */
export class TooManyRequests extends HttpException {
  constructor(retryAfterSeconds: string | undefined) {
    super(
      {
        message: `too many requests: retry in ${retryAfterSeconds ?? 1} s`,
        data: { retry_after: Number(retryAfterSeconds ?? 1) },
      },
      HttpStatus.TOO_MANY_REQUESTS,
    );
  }
}

/** One bucket per class and key; the store is shared by every process on the same PostgreSQL. */
export class RateLimiter implements OnModuleDestroy {
  private readonly pruning?: NodeJS.Timeout;
  private tookSincePrune = false;

  constructor(
    private readonly config: RateLimitConfig,
    private readonly store: RateLimitStore,
  ) {
    if (config.enabled) this.pruning = setInterval(() => this.pruneAfterTraffic(), PRUNE_EVERY_MS).unref();
  }

  private pruneAfterTraffic(): void {
    if (!this.tookSincePrune) return;
    this.tookSincePrune = false;
    void this.store.prune().catch(() => undefined);
  }

  /**
   * Buckets in the process where STORE_URL runs one statement at a time (PGlite: one process,
   * and every statement would delay the others), in the SQL store otherwise.
   */
  static async open(config: RateLimitConfig, sql: SqlDatabase): Promise<RateLimiter> {
    const store =
      !config.enabled || sql.oneStatementAtATime ? new MemoryRateLimitStore() : await SqlRateLimitStore.open(sql);
    return new RateLimiter(config, store);
  }

  async check(limitClass: RateLimitClass, key: string): Promise<RateLimitVerdict> {
    if (!this.config.enabled) return { allowed: true, headers: {} };
    const policy = this.config[limitClass];
    this.tookSincePrune = true;
    const { allowed, fullAtMs, nowMs } = await this.store.take(`${limitClass}:${key}`, policy);
    return { allowed, headers: rateLimitHeaders(fullAtMs, policy, nowMs, allowed) };
  }

  onModuleDestroy(): void {
    clearInterval(this.pruning);
  }
}
