import {
  collectionDecider,
  evolve,
  timerChanges,
  type Collection,
  type CollectionTimerKind,
  type CollectionEvent,
} from '@paygate/collections-domain';
import {
  COLLECTION_STREAM_PREFIX,
  type CollectionActivityQuery,
  type CollectionActivityRow,
  type CollectionPosition,
  type ListCollectionsQuery,
} from '@paygate/contracts';
import type { EventStore } from '@paygate/event-store';
import { JOBS_MIGRATIONS } from '@paygate/jobs';
import { Projection, type StreamReadModel } from '@paygate/projections';
import { fromJson, migrate, type SqlDatabase } from '@paygate/sql';
import { LeasedTimers } from '@paygate/timers';
import { COLLECTIONS_MIGRATIONS } from './migrations';

/** The collection timers, on the job queue (queue `collection_timers`, the table they had before). */
export const COLLECTION_TIMERS = new LeasedTimers<CollectionTimerKind>('collection_timers', {
  confirmation: true,
  provider: true,
  status: true,
});

/**
 * `collection_view`: one row per collection stream, the collection as GET /v1/collections answers it; the durable
 * timers go with it.
 */
export function collectionView(statusPollMs: number): StreamReadModel<CollectionEvent, Collection> {
  return {
    streamPrefix: COLLECTION_STREAM_PREFIX,
    read: collectionDecider.read,
    evolve,
    table: 'collection_view',
    key: (internalReference) => ({ internal_reference: internalReference }),
    columns: {
      merchant_id: 'text',
      merchant_reference: 'text',
      status: 'text',
      transaction_method: 'text',
      provider_code: 'text',
      created_at: 'text',
      currency: 'text',
      request_amount: 'bigint',
      state: 'jsonb',
    },
    toColumns: (state) => ({
      merchant_id: state.initiated.merchantId,
      merchant_reference: state.initiated.merchantReference,
      status: state.status,
      transaction_method: state.initiated.transactionMethod,
      provider_code: state.initiated.providerCode,
      created_at: state.initiated.initiatedAt,
      currency: state.initiated.currency,
      request_amount: state.initiated.requestAmount,
      state,
    }),
    fromColumns: (values) => values.state as Collection,
    async alongside(tx, changes) {
      await COLLECTION_TIMERS.apply(
        tx,
        changes.map(({ streamId, event }) => ({
          internalReference: streamId,
          changes: timerChanges(event, statusPollMs),
        })),
      );
    },
  };
}

/**
 * The collections context's projection (collection_view and its timers) and the reads GET /v1/collections makes of it.
 */
export class CollectionProjection extends Projection {
  static async open(sql: SqlDatabase, store: EventStore, statusPollMs: number): Promise<CollectionProjection> {
    // collections/0002 moves timers onto the job queue: the `jobs` table comes first.
    await migrate(sql, [...JOBS_MIGRATIONS, ...COLLECTIONS_MIGRATIONS]);
    return new CollectionProjection('collections-projection', [collectionView(statusPollMs)], sql, store);
  }

  async findByInternalReference(merchantId: string, internalReference: string): Promise<Collection | null> {
    const [row] = await this.sql.query<{ state: unknown }>(
      'select state from collection_view where internal_reference = $1 and merchant_id = $2',
      [internalReference, merchantId],
    );
    return row ? this.stateOf(row) : null;
  }

  async findByMerchantReference(merchantId: string, merchantReference: string): Promise<Collection | null> {
    const [row] = await this.sql.query<{ state: unknown }>(
      'select state from collection_view where merchant_id = $1 and merchant_reference = $2',
      [merchantId, merchantReference],
    );
    return row ? this.stateOf(row) : null;
  }

  /** A page newest first, keyset-paged on (created_at, internal_reference) so inserts never shift a page. */
  async list(query: ListCollectionsQuery): Promise<{ collections: Collection[]; next?: CollectionPosition }> {
    const params: unknown[] = [query.merchantId];
    const where = ['merchant_id = $1'];
    const filter = (condition: (param: string) => string, value: unknown) => {
      if (value === undefined) return;
      params.push(value);
      where.push(condition(`$${params.length}`));
    };
    filter((p) => `status = ${p}`, query.status);
    filter((p) => `transaction_method = ${p}`, query.method);
    filter((p) => `provider_code = ${p}`, query.providerCode);
    filter((p) => `created_at >= ${p}`, query.createdFrom);
    filter((p) => `created_at < ${p}`, query.createdTo);
    if (query.after) {
      params.push(query.after.createdAt, query.after.internalReference);
      where.push(`(created_at, internal_reference) < ($${params.length - 1}, $${params.length})`);
    }
    params.push(query.limit + 1);
    const rows = await this.sql.query<{ state: unknown }>(
      `select state from collection_view where ${where.join(' and ')}
       order by created_at desc, internal_reference desc limit $${params.length}`,
      params,
    );
    const collections = rows.slice(0, query.limit).map((row) => this.stateOf(row));
    const last = collections.at(-1);
    return rows.length > query.limit && last
      ? {
          collections,
          next: { createdAt: last.initiated.initiatedAt, internalReference: last.initiated.internalReference },
        }
      : { collections };
  }

  private stateOf(row: { state: unknown }): Collection {
    return fromJson(this.sql, row.state);
  }

  /** When the oldest collection still PENDING was initiated (an ISO instant), or null when none is. */
  async oldestPendingSince(): Promise<string | null> {
    const [row] = await this.sql.query<{ oldest: string | null }>(
      "select min(created_at) as oldest from collection_view where status = 'PENDING'",
    );
    return row?.oldest ?? null;
  }

  /** Counts and sums by UTC day, status and currency: created_at is an ISO instant, so its first ten characters are the day. */
  async activity({ merchantId, since }: CollectionActivityQuery): Promise<CollectionActivityRow[]> {
    const rows = await this.sql.query<{ day: string; status: string; currency: string; count: string; amount: string }>(
      `select substr(created_at, 1, 10) as day, status, currency, count(*) as count, sum(request_amount) as amount
       from collection_view where merchant_id = $1 and created_at >= $2
       group by 1, 2, 3 order by 1, 2, 3`,
      [merchantId, since],
    );
    return rows.map((row) => ({
      day: row.day,
      status: row.status as CollectionActivityRow['status'],
      currency: row.currency,
      count: Number(row.count),
      amount: Number(row.amount),
    }));
  }
}
