import { collectionDecider, evolve, type Collection, type CollectionState, type CollectionTimerKind } from '@paygate/collections-domain';
import { fold } from '@paygate/decider';
import { COLLECTION_EVENT_TYPES as EVENTS, collectionStream, type CollectionInitiatedV1 } from '@paygate/contracts';
import type { EventStore, RecordedEvent } from '@paygate/event-store';
import { migrate, type SqlDatabase } from '@paygate/sql';
import { LeasedTimers } from '@paygate/timers';
import { COLLECTIONS_MIGRATIONS } from './migrations';

export const COLLECTION_TIMERS = new LeasedTimers<CollectionTimerKind>('collection_timers');

/**
 * The read model behind GET /v1/collections and the durable timers, projected from the
 * collection streams. Each event is applied in one transaction with its stream revision, so
 * redelivery (at-least-once) changes nothing.
 */
export class CollectionProjection {
  private constructor(
    private readonly sql: SqlDatabase,
    private readonly store: EventStore,
    private readonly statusPollMs: number,
  ) {}

  static async open(sql: SqlDatabase, store: EventStore, statusPollMs: number): Promise<CollectionProjection> {
    await migrate(sql, COLLECTIONS_MIGRATIONS);
    return new CollectionProjection(sql, store, statusPollMs);
  }

  async apply(recorded: RecordedEvent): Promise<void> {
    // The stream also holds the events published for other contexts: they change no state.
    const event = collectionDecider.read({ type: recorded.type, data: recorded.data, schemaVersion: Number(recorded.metadata.schemaVersion ?? 1) });
    if (!event) return;
    const internalReference = recorded.streamName.slice(collectionStream('').length);
    if (recorded.revision === 0 && event.type === EVENTS.initiated) return this.applyFirst(internalReference, event.data);
    await this.sql.transaction(async (tx) => {
      const [row] = await tx.query<{ revision: number; state: Collection }>('select revision, state from collection_view where internal_reference = $1 for update', [
        internalReference,
      ]);
      if (row && recorded.revision <= row.revision) return;
      let state: CollectionState;
      // Each stream arrives in order, at least once: anything past the row's revision is next
      // (published events in between are skipped). Without a row, the stream itself is read.
      if (row) {
        state = evolve(row.state, event);
      } else {
        const events = await this.store.readStream(recorded.streamName, { maxCount: recorded.revision + 1 });
        state = fold(collectionDecider, events.flatMap((stored) => collectionDecider.read({ type: stored.type, data: stored.data, schemaVersion: Number(stored.metadata.schemaVersion ?? 1) }) ?? []));
      }
      if (!state) return;
      await tx.query(
        `insert into collection_view (internal_reference, merchant_id, merchant_reference, revision, state) values ($1, $2, $3, $4, $5::jsonb)
         on conflict (internal_reference) do update set revision = excluded.revision, state = excluded.state`,
        [internalReference, state.initiated.merchantId, state.initiated.merchantReference, recorded.revision, JSON.stringify(state)],
      );
      switch (event.type) {
        case EVENTS.initiated:
          if (event.data.confirmationExpiresAt) await COLLECTION_TIMERS.schedule(tx, internalReference, 'confirmation', new Date(event.data.confirmationExpiresAt));
          break;
        case EVENTS.confirmed:
          await COLLECTION_TIMERS.cancel(tx, internalReference, ['confirmation']);
          await COLLECTION_TIMERS.schedule(tx, internalReference, 'provider', new Date(event.data.providerExpiresAt));
          await COLLECTION_TIMERS.schedule(tx, internalReference, 'status', new Date(Date.parse(event.data.confirmedAt) + this.statusPollMs));
          break;
        case EVENTS.completed:
        case EVENTS.failed:
        case EVENTS.cancelled:
          await COLLECTION_TIMERS.cancel(tx, internalReference);
          break;
      }
    });
  }

  /**
   * Every collection starts here, so it is one statement: the view row and the confirmation
   * timer, written only if the row is new (a redelivered event changes nothing).
   */
  private async applyFirst(internalReference: string, data: CollectionInitiatedV1): Promise<void> {
    const state = evolve(null, { type: EVENTS.initiated, data });
    await this.sql.query(
      `with inserted as (
         insert into collection_view (internal_reference, merchant_id, merchant_reference, revision, state) values ($1, $2, $3, 0, $4::jsonb)
         on conflict (internal_reference) do nothing returning internal_reference
       )
       ${COLLECTION_TIMERS.upsert(`select internal_reference, 'confirmation', $5::timestamptz, $5::timestamptz from inserted where $5::timestamptz is not null`)}`,
      [internalReference, data.merchantId, data.merchantReference, JSON.stringify(state), data.confirmationExpiresAt ?? null],
    );
  }

  async findByInternalReference(merchantId: string, internalReference: string): Promise<Collection | null> {
    const [row] = await this.sql.query<{ state: Collection }>('select state from collection_view where internal_reference = $1 and merchant_id = $2', [internalReference, merchantId]);
    return row?.state ?? null;
  }

  async findByMerchantReference(merchantId: string, merchantReference: string): Promise<Collection | null> {
    const [row] = await this.sql.query<{ state: Collection }>('select state from collection_view where merchant_id = $1 and merchant_reference = $2', [merchantId, merchantReference]);
    return row?.state ?? null;
  }
}
