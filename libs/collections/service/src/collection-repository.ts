import { decide, evolve, rebuild, type CollectionCommand, type CollectionState } from '@paygate/collections-domain';
import { COLLECTION_EVENT_SCHEMA_VERSION, collectionStream, type CollectionEvent } from '@paygate/contracts';
import { WrongExpectedRevisionError, type EventStore } from '@paygate/event-store';

export interface LoadedCollection {
  state: CollectionState;
  /** Revision of the stream's last event, or -1 when the stream does not exist. */
  revision: number;
}

const MAX_ATTEMPTS = 5;

/** Loads a collection from its stream and appends what `decide` returns, retrying on a concurrent write. */
export class CollectionRepository {
  constructor(private readonly store: EventStore) {}

  async events(internalReference: string): Promise<CollectionEvent[]> {
    return (await this.store.readStream(collectionStream(internalReference))) as unknown as CollectionEvent[];
  }

  async load(internalReference: string): Promise<LoadedCollection> {
    const events = await this.store.readStream(collectionStream(internalReference));
    return { state: rebuild(events as unknown as CollectionEvent[]), revision: events.length === 0 ? -1 : events[events.length - 1].revision };
  }

  /** Starts a stream known not to exist yet (a fresh reference): no read before the append. */
  async create(internalReference: string, command: CollectionCommand): Promise<CollectionState> {
    const events = decide(command, null);
    try {
      await this.append(internalReference, events, -1);
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      return this.execute(internalReference, () => command);
    }
    return events.reduce(evolve, null as CollectionState);
  }

  /**
   * Decides `command` against the latest state and appends the result with optimistic
   * concurrency; on a conflict it reloads and decides again. Returns the state after the append.
   */
  async execute(internalReference: string, command: (state: CollectionState) => CollectionCommand): Promise<CollectionState> {
    for (let attempt = 1; ; attempt++) {
      const { state, revision } = await this.load(internalReference);
      const events = decide(command(state), state);
      if (events.length === 0) return state;
      try {
        await this.append(internalReference, events, revision);
        return events.reduce(evolve, state);
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError) || attempt >= MAX_ATTEMPTS) throw error;
      }
    }
  }

  private async append(internalReference: string, events: CollectionEvent[], revision: number): Promise<void> {
    await this.store.appendToStream(
      collectionStream(internalReference),
      events.map((event) => ({ type: event.type, data: { ...event.data }, metadata: { schemaVersion: COLLECTION_EVENT_SCHEMA_VERSION } })),
      { expectedRevision: revision === -1 ? 'no_stream' : revision },
    );
  }
}
