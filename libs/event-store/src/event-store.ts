import type { SqlClient } from '@paygate/sql';

/**
 * The event store port. Every service appends and reads through it; adapters (SQL, KurrentDB)
 * prove the same semantics in one conformance suite (libs/testing).
 *
 * Revisions follow KurrentDB: a stream's first event has revision 0 and a stream's revision is
 * that of its last event. Global positions are opaque strings whose order only the adapter
 * knows; callers store them as checkpoints and hand them back.
 */
export type ExpectedRevision = 'no_stream' | 'stream_exists' | 'any' | number;

export interface EventToAppend {
  /** UUID; generated when absent. Consumers deduplicate by it. */
  id?: string;
  type: string;
  data: Record<string, unknown>;
  metadata?: Record<string, unknown>;
}

export interface RecordedEvent {
  id: string;
  type: string;
  streamName: string;
  revision: number;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
  /** Opaque global position, usable as a checkpoint. */
  position: string;
  recordedAt: string;
}

export interface AppendResult {
  /** Revision of the last event written: the expected revision of the next append. */
  nextExpectedRevision: number;
  position: string;
}

/** Where one event is: its stream and its revision there. */
export interface EventPlace {
  streamName: string;
  revision: number;
}

export interface ReadAllOptions {
  /** Start after this position; absent reads from the beginning. */
  after?: string | null;
  maxCount?: number;
  /** Only streams whose name starts with one of these. */
  streamPrefixes?: string[];
}

export interface SubscribeOptions {
  after?: string | null;
  streamPrefixes?: string[];
}

/** A subscription's handler: the events one read brought, in global order, never empty. */
export type PageHandler = (page: RecordedEvent[]) => Promise<void>;

/** A page handler that takes the events one at a time, for consumers that have nothing to gain from pages. */
export function eachEvent(handler: (event: RecordedEvent) => Promise<void>): PageHandler {
  return async (page) => {
    for (const event of page) await handler(event);
  };
}

export interface EventSubscription {
  /** Stops after the page being handled; resolves when the subscription has stopped. */
  stop(): Promise<void>;
  /** Settles when the subscription ends: resolves on stop, rejects with a handler's or the store's error. */
  readonly ended: Promise<void>;
}

/** One transaction of a SQL event store (EventStore.transaction). */
export interface EventStoreTransaction {
  /** The transaction on the store's own SQL database: rows written through it commit with the events. */
  sql: SqlClient;
  appendToStream(
    streamName: string,
    events: EventToAppend[],
    options?: { expectedRevision?: ExpectedRevision },
  ): Promise<AppendResult>;
}

export interface EventStore {
  appendToStream(
    streamName: string,
    events: EventToAppend[],
    options?: { expectedRevision?: ExpectedRevision },
  ): Promise<AppendResult>;
  /**
   * Present where the events live in the SQL database (STORE_URL), absent on KurrentDB: runs
   * `work` in one transaction of that database, so the events it appends and the rows it writes
   * through `tx.sql` are committed together or not at all. Subscribers see the events once it
   * has committed.
   */
  transaction?<T>(work: (tx: EventStoreTransaction) => Promise<T>): Promise<T>;
  /** Events of one stream in revision order; an absent stream reads as empty. */
  readStream(streamName: string, options?: { fromRevision?: number; maxCount?: number }): Promise<RecordedEvent[]>;
  /** The events at these places, in no particular order; a place that holds no event is left out. */
  readAt(places: readonly EventPlace[]): Promise<RecordedEvent[]>;
  /** Events of all streams in global order; never returns an event before an earlier one is visible. */
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  /**
   * Catches up from `after`, then follows live. Events reach the handler a page at a time (what
   * one read brought: a SQL store's page, one event on KurrentDB's push subscription) in global
   * order, never skipped or reordered, so a consumer can write a page in one statement. A
   * handler that throws ends the subscription (see `ended`); durable consumers restart it from
   * their checkpoint.
   */
  subscribeToAll(options: SubscribeOptions, handler: PageHandler): EventSubscription;
  /** Resolves when the store answers (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

const POSITION = /^(\d+)\/(\d+)$/;

/**
 * Positions of both adapters are two unsigned integers, `a/b`, ordered by `a` then `b` (SQL:
 * transaction id and row sequence, the transaction always 0 on SQLite; KurrentDB: commit and
 * prepare position), so two positions of one store compare without asking it: what a reader
 * needs to bound a range (`paygate events export --through`). Throws on anything that is not a
 * position.
 */
export function comparePositions(a: string, b: string): number {
  const [a1, a2] = positionParts(a);
  const [b1, b2] = positionParts(b);
  if (a1 !== b1) return a1 < b1 ? -1 : 1;
  if (a2 !== b2) return a2 < b2 ? -1 : 1;
  return 0;
}

export function isPosition(text: string): boolean {
  return POSITION.test(text);
}

function positionParts(position: string): [bigint, bigint] {
  const match = POSITION.exec(position);
  if (!match) throw new Error(`not an event store position: "${position}" (expected two numbers, such as 1234/5678)`);
  return [BigInt(match[1]), BigInt(match[2])];
}

export class WrongExpectedRevisionError extends Error {
  override readonly name = 'WrongExpectedRevisionError';
  constructor(
    readonly streamName: string,
    readonly expected: ExpectedRevision,
    /** Current revision, or 'no_stream' when the stream does not exist. */
    readonly actual: number | 'no_stream',
  ) {
    super(`stream ${streamName}: expected revision ${expected}, actual ${actual}`);
  }
}
