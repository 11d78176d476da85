import {
  BACKWARDS,
  END,
  START,
  KurrentDBClient,
  StreamNotFoundError,
  WrongExpectedVersionError,
  jsonEvent,
  type Filter,
  type Position,
  type RecordedEvent as KurrentRecordedEvent,
} from '@kurrent/kurrentdb-client';
import {
  WrongExpectedRevisionError,
  type AppendResult,
  type EventStore,
  type EventSubscription,
  type EventToAppend,
  type ExpectedRevision,
  type PageHandler,
  type EventPlace,
  type ReadAllOptions,
  type RecordedEvent,
  type SubscribeOptions,
} from '../event-store';
import {
  allFilter,
  comparePositions,
  encodePosition,
  isSystemEvent,
  parsePosition,
  toActualRevision,
  toConnectionString,
  toStreamState,
} from './kurrent-mapping';

/** Same page size as the SQL adapter when a caller gives no maxCount. */
const DEFAULT_READ_ALL_COUNT = 500;
/** The native reader has no per-call deadline, and an unreachable host can stall a connect. */
const PING_TIMEOUT_MS = 5_000;

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const collected: T[] = [];
  for await (const item of items) collected.push(item);
  return collected;
}

async function withTimeout<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function jsonObject(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof Uint8Array) {
    throw new Error(`${what} is not a JSON object`);
  }
  return value as Record<string, unknown>;
}

function toRecordedEvent(event: KurrentRecordedEvent): RecordedEvent {
  const what = `event ${event.id} of ${event.streamId}`;
  if (!event.position) throw new Error(`${what} has no position (KurrentDB/EventStoreDB 22.6 or later is required)`);
  return {
    id: event.id,
    type: event.type,
    streamName: event.streamId,
    revision: Number(event.revision),
    data: jsonObject(event.data, `data of ${what}`),
    metadata: event.metadata === undefined ? {} : jsonObject(event.metadata, `metadata of ${what}`),
    position: encodePosition(event.position),
    recordedAt: event.created.toISOString(),
  };
}

/** Events strictly after `after`, whether or not the server's start position was inclusive. */
const isAfter = (position: Position, after: Position | null) => !after || comparePositions(position, after) > 0;

export class KurrentEventStore implements EventStore {
  private readonly subscriptions = new Set<EventSubscription>();

  private constructor(private readonly client: KurrentDBClient) {}

  /** Opens no connection (the client connects on first use): start-up readiness is ping()'s job. */
  static async connect(url: string): Promise<KurrentEventStore> {
    return new KurrentEventStore(KurrentDBClient.connectionString(toConnectionString(url)));
  }

  async appendToStream(
    streamName: string,
    events: EventToAppend[],
    { expectedRevision = 'any' }: { expectedRevision?: ExpectedRevision } = {},
  ): Promise<AppendResult> {
    if (events.length === 0) throw new Error('appendToStream needs at least one event');
    const result = await this.client
      .appendToStream(
        streamName,
        events.map((e) => jsonEvent({ id: e.id, type: e.type, data: e.data, metadata: e.metadata })),
        { streamState: toStreamState(expectedRevision) },
      )
      .catch((error: unknown) => {
        throw error instanceof WrongExpectedVersionError
          ? new WrongExpectedRevisionError(streamName, expectedRevision, toActualRevision(error.actualState))
          : error;
      });
    // Only a connection string with throwOnAppendFailure=false makes a conflict resolve instead of throw.
    if (!result.success || !result.position) {
      throw new Error(`KurrentDB did not append to ${streamName}; leave throwOnAppendFailure at its default`);
    }
    return { nextExpectedRevision: Number(result.nextExpectedRevision), position: encodePosition(result.position) };
  }

  async readStream(
    streamName: string,
    { fromRevision = 0, maxCount }: { fromRevision?: number; maxCount?: number } = {},
  ): Promise<RecordedEvent[]> {
    try {
      const resolved = await collect(
        this.client.readStream(streamName, { fromRevision: BigInt(fromRevision), maxCount }),
      );
      return resolved.flatMap(({ event }) => (event ? [toRecordedEvent(event)] : []));
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
  }

  /** One read per place: a stream read from a revision is what KurrentDB indexes. */
  async readAt(places: readonly EventPlace[]): Promise<RecordedEvent[]> {
    const found = await Promise.all(
      places.map((place) => this.readStream(place.streamName, { fromRevision: place.revision, maxCount: 1 })),
    );
    return found.flat();
  }

  /**
   * Pages until `maxCount` events are kept or $all ends: the start position is inclusive and
   * system events matching a prefix are dropped here, so one server page may keep fewer.
   */
  async readAll({ after = null, maxCount = DEFAULT_READ_ALL_COUNT, streamPrefixes }: ReadAllOptions = {}): Promise<
    RecordedEvent[]
  > {
    const filter = allFilter(streamPrefixes);
    const kept: RecordedEvent[] = [];
    let cursor = after ? parsePosition(after) : null;
    while (kept.length < maxCount) {
      const pageSize = maxCount - kept.length + (cursor ? 1 : 0);
      const page = await this.readAllPage(cursor ?? START, pageSize, filter);
      for (const event of page) {
        if (kept.length === maxCount) break;
        if (!isSystemEvent(event.streamId, event.type) && isAfter(event.position, cursor))
          kept.push(toRecordedEvent(event));
      }
      if (page.length < pageSize) break;
      cursor = page[page.length - 1].position;
    }
    return kept;
  }

  subscribeToAll({ after = null, streamPrefixes }: SubscribeOptions, handler: PageHandler): EventSubscription {
    const start = after ? parsePosition(after) : null;
    const source = this.client.subscribeToAll({ fromPosition: start ?? START, filter: allFilter(streamPrefixes) });
    // Errors also reach the iterator; this listener keeps one arriving after the loop from crashing the process.
    source.on('error', () => undefined);
    let stopping = false;

    const run = async () => {
      const events = source[Symbol.asyncIterator]();
      try {
        while (!stopping) {
          // stop() destroys the source, which fails a pending read: that is the stop, not an error.
          const next = await events.next().catch((error: unknown) => {
            if (stopping) return { done: true as const, value: undefined };
            throw error;
          });
          if (next.done) break;
          const { event } = next.value;
          if (event && !isSystemEvent(event.streamId, event.type) && isAfter(event.position, start)) {
            await handler([toRecordedEvent(event)]);
          }
        }
      } finally {
        this.subscriptions.delete(subscription);
        await events.return?.();
        await source.unsubscribe().catch(() => undefined);
      }
      if (!stopping) throw new Error('KurrentDB ended the subscription');
    };

    const ended = run();
    ended.catch(() => undefined); // observed through `ended`; never an unhandled rejection
    const subscription: EventSubscription = {
      ended,
      async stop() {
        stopping = true;
        source.destroy();
        await ended.catch(() => undefined);
      },
    };
    this.subscriptions.add(subscription);
    return subscription;
  }

  async ping(): Promise<void> {
    await withTimeout(
      collect(this.client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 1 })),
      PING_TIMEOUT_MS,
      `KurrentDB did not answer within ${PING_TIMEOUT_MS} ms`,
    );
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((subscription) => subscription.stop()));
    await this.client.dispose();
  }

  private async readAllPage(from: Position | typeof START, maxCount: number, filter: Filter) {
    const resolved = await collect(this.client.readAll({ fromPosition: from, maxCount, filter }));
    return resolved.flatMap(({ event }) => (event ? [event] : []));
  }
}
