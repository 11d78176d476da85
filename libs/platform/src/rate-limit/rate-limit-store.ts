import { migrate, type SqlDatabase } from '@paygate/sql';
import { RATE_LIMIT_MIGRATIONS } from './migrations';
import { bucketWindowMs, takeToken, tokenIntervalMs, type BucketPolicy } from './token-bucket';

export interface StoreTake {
  allowed: boolean;
  fullAtMs: number;
  /** The store's clock when it decided: headers are computed against it, not the caller's. */
  nowMs: number;
}

/** Where buckets live: one take is atomic, whatever the number of processes sharing the store. */
export interface RateLimitStore {
  take(key: string, policy: BucketPolicy): Promise<StoreTake>;
  /** Forgets full buckets (a full bucket and no bucket are the same state). */
  prune(): Promise<void>;
}

/** One process's buckets. */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly buckets = new Map<string, number>();

  constructor(private readonly clock: () => number = Date.now) {}

  async take(key: string, policy: BucketPolicy): Promise<StoreTake> {
    const nowMs = this.clock();
    const result = takeToken(this.buckets.get(key), policy, nowMs);
    this.buckets.set(key, result.fullAtMs);
    return { ...result, nowMs };
  }

  async prune(): Promise<void> {
    const nowMs = this.clock();
    for (const [key, fullAtMs] of this.buckets) if (fullAtMs <= nowMs) this.buckets.delete(key);
  }
}

/**
 * takeToken in one statement, so concurrent takes on one key from any number of gateways
 * serialise on the row, and the database's clock is the only clock. `allowed` keeps the last
 * decision only so that RETURNING can tell a refusal from a take.
 */
const TAKE = `
  insert into rate_limit_buckets as b (key, full_at, allowed)
  values ($1, statement_timestamp() + $2::float8 * interval '1 millisecond', true)
  on conflict (key) do update set
    allowed = greatest(b.full_at, statement_timestamp()) + $2::float8 * interval '1 millisecond'
      <= statement_timestamp() + $3::float8 * interval '1 millisecond',
    full_at = case
      when greatest(b.full_at, statement_timestamp()) + $2::float8 * interval '1 millisecond'
        <= statement_timestamp() + $3::float8 * interval '1 millisecond'
      then greatest(b.full_at, statement_timestamp()) + $2::float8 * interval '1 millisecond'
      else b.full_at
    end
  returning allowed,
    extract(epoch from full_at)::float8 * 1000 as full_at_ms,
    extract(epoch from statement_timestamp())::float8 * 1000 as now_ms`;

/** Buckets in the SQL store every gateway shares (PostgreSQL): the limit holds across instances. */
export class SqlRateLimitStore implements RateLimitStore {
  private constructor(private readonly db: SqlDatabase) {}

  static async open(db: SqlDatabase): Promise<SqlRateLimitStore> {
    await migrate(db, RATE_LIMIT_MIGRATIONS);
    return new SqlRateLimitStore(db);
  }

  async take(key: string, policy: BucketPolicy): Promise<StoreTake> {
    // A tenth of a token of slack: statement_timestamp() is when a statement started, so a take
    // that waited for the row behind another gateway's take may see a clock behind its
    // predecessor's, and without slack would be refused a token the bucket still holds. The
    // sustained rate is unchanged (every take still moves full_at by a whole interval).
    const interval = tokenIntervalMs(policy);
    const [row] = await this.db.query<{ allowed: boolean; full_at_ms: number; now_ms: number }>(TAKE, [
      key,
      interval,
      bucketWindowMs(policy) + interval / 10,
    ]);
    return { allowed: row.allowed, fullAtMs: Number(row.full_at_ms), nowMs: Number(row.now_ms) };
  }

  async prune(): Promise<void> {
    await this.db.query('delete from rate_limit_buckets where full_at <= statement_timestamp()');
  }
}
