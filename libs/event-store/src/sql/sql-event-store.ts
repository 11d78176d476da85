import { randomUUID } from 'node:crypto';
import { CommitAnnouncer, listenInSchema, migrate, type SqlClient, type SqlDatabase } from '@paygate/sql';
import {
  WrongExpectedRevisionError,
  type AppendResult,
  type EventStore,
  type EventStoreTransaction,
  type EventSubscription,
  type EventToAppend,
  type ExpectedRevision,
  type PageHandler,
  type EventPlace,
  type ReadAllOptions,
  type RecordedEvent,
  type SubscribeOptions,
} from '../event-store';
import { AppendSignal, runSubscriptionLoop } from '../subscription-loop';
import type { EventRow, EventStoreDialect, PositionParts } from './dialect';
import { EVENT_STORE_MIGRATIONS } from './migrations';
import { POSTGRES_DIALECT } from './postgres-dialect';
import { SQLITE_DIALECT } from './sqlite-dialect';

/**
 * Appends tell the subscriptions of other processes (their poll is only a fallback) once they
 * commit (CommitAnnouncer); the payload is the appending store's token, so its own subscriptions,
 * woken by the append itself, do not read twice.
 */
const APPENDS_CHANNEL = 'paygate_appends';

/** Each dialect's statements, by SqlDatabase.dialect. */
const DIALECTS: Record<SqlDatabase['dialect'], EventStoreDialect> = {
  postgres: POSTGRES_DIALECT,
  sqlite: SQLITE_DIALECT,
};

/** How many pages of the log's tail a process keeps for its subscriptions that are behind. */
const TAIL_PAGES = 2;

const toPosition = (row: Pick<EventRow, 'transaction_id' | 'global_position'>) =>
  `${row.transaction_id}/${row.global_position}`;

function parsePosition(position: string): PositionParts {
  const match = /^(\d+)\/(\d+)$/.exec(position);
  if (!match) throw new Error(`not a position of this event store: ${position}`);
  return [match[1], match[2]];
}

/** Whether position `a` comes after `b` in the global order; null is before every event. */
function isAfter(a: string | null, b: string | null): boolean {
  if (a === null) return false;
  if (b === null) return true;
  const [aTransaction, aPosition] = parsePosition(a).map(BigInt);
  const [bTransaction, bPosition] = parsePosition(b).map(BigInt);
  return aTransaction !== bTransaction ? aTransaction > bTransaction : aPosition > bPosition;
}

/**
 * The tail of the log this process read last: every event after `from` up to the last of them, in order.
 * A read after X whose page ends at E holds all there will ever be between them (a row that
 * commits later sorts after E: see each dialect's order), so the segment stays true, and a
 * subscription anywhere in it takes its page from memory. `asOf` is the append count when the
 * read that brought its last event started: appends of this process after it may lie beyond
 * that event; so may anything at all when that read was a full page (`endFull`).
 */
interface TailSegment {
  from: string | null;
  /** Never empty. */
  events: RecordedEvent[];
  asOf: number;
  endFull: boolean;
  /** The read that brought its last event saw committed events still behind the horizon. */
  endHeldBack: boolean;
}

/** A page of the log for a subscription, and whether committed events wait behind the horizon. */
interface LogPage {
  events: RecordedEvent[];
  heldBack: boolean;
}

const tailEnd = (tail: TailSegment) => tail.events[tail.events.length - 1].position;

const json = (value: Record<string, unknown> | string) =>
  typeof value === 'string' ? (JSON.parse(value) as Record<string, unknown>) : value;

function toRecordedEvent(row: EventRow): RecordedEvent {
  return {
    id: row.event_id,
    type: row.event_type,
    streamName: row.stream_name,
    revision: Number(row.stream_revision),
    data: json(row.data),
    metadata: json(row.metadata),
    position: toPosition(row),
    recordedAt: new Date(row.recorded_at).toISOString(),
  };
}

export interface SqlEventStoreOptions {
  /**
   * The longest a caught-up subscription waits before it reads anyway (default 30 s): a fallback,
   * since appends of this process wake it, and those of others through their notification.
   */
  pollIntervalMs?: number;
  /**
   * The least time between two reads of one subscription while this process keeps appending:
   * appends within it share a read. A first append after a quiet spell is read at once.
   * Default 10 ms where statements run one at a time (PGlite, SQLite: every read holds up every
   * writer), 2 ms otherwise (PostgreSQL reads on a connection of their own).
   */
  minReadIntervalMs?: number;
  pageSize?: number;
}

export class SqlEventStore implements EventStore {
  /** Wakes this process's subscriptions after its own appends. */
  private readonly appends = new AppendSignal();
  /** Live subscriptions' reads under way, by the position they read after (livePage). */
  private readonly liveReads = new Map<string, { changeCount: number; page: Promise<LogPage> }>();
  /** What this process's subscriptions read last, shared: only one at the end of it reads the database. */
  private tail: TailSegment | undefined;
  /** Names this store's appends in their notifications (APPENDS_CHANNEL). */
  private readonly token = randomUUID();
  /** Tells other processes of this one's appends; none where no other process can read them (an embedded engine). */
  private readonly announcer?: CommitAnnouncer;
  private stopListening?: () => Promise<void>;

  /** This database's statements. */
  private readonly dialect: EventStoreDialect;

  private constructor(
    private readonly db: SqlDatabase,
    private readonly options: Required<SqlEventStoreOptions>,
  ) {
    // A notification lost with a failing database costs the other processes one fallback poll.
    if (db.shared) this.announcer = new CommitAnnouncer(db, APPENDS_CHANNEL, this.token, () => {});
    this.dialect = DIALECTS[db.dialect];
  }

  static async create(db: SqlDatabase, options: SqlEventStoreOptions = {}): Promise<SqlEventStore> {
    await migrate(db, EVENT_STORE_MIGRATIONS);
    const store = new SqlEventStore(db, {
      pollIntervalMs: options.pollIntervalMs ?? 30_000,
      minReadIntervalMs: options.minReadIntervalMs ?? (db.oneStatementAtATime ? 10 : 2),
      pageSize: options.pageSize ?? 500,
    });
    // Another process's append (or a listening connection back after a loss) wakes the subscriptions here.
    store.stopListening = await listenInSchema(db, APPENDS_CHANNEL, (payload) => {
      if (payload !== store.token) store.appends.notify();
    });
    return store;
  }

  async appendToStream(
    streamName: string,
    events: EventToAppend[],
    options: { expectedRevision?: ExpectedRevision } = {},
  ): Promise<AppendResult> {
    // Where statements run one at a time (PGlite, SQLite), a transaction joins the others waiting and shares their commit.
    const result = this.db.oneStatementAtATime
      ? await this.db.transaction((tx) => this.appendWith(tx, streamName, events, options))
      : await this.appendWith(this.db, streamName, events, options);
    this.committed();
    return result;
  }

  async transaction<T>(work: (tx: EventStoreTransaction) => Promise<T>): Promise<T> {
    let appended = false;
    const result = await this.db.transaction((sql) =>
      work({
        sql,
        appendToStream: async (streamName, events, options = {}) => {
          const written = await this.appendWith(sql, streamName, events, options);
          appended = true;
          return written;
        },
      }),
    );
    // Woken before the commit, a subscription would read nothing yet and wait for its next poll.
    if (appended) this.committed();
    return result;
  }

  /** After an append commits: this process's subscriptions at once, other processes' through the announcer. */
  private committed(): void {
    this.appends.notify();
    this.announcer?.announce();
  }

  private async appendWith(
    client: SqlClient,
    streamName: string,
    events: EventToAppend[],
    { expectedRevision = 'any' }: { expectedRevision?: ExpectedRevision },
  ): Promise<AppendResult> {
    if (events.length === 0) throw new Error('appendToStream needs at least one event');
    if (typeof expectedRevision === 'number' && !(Number.isSafeInteger(expectedRevision) && expectedRevision >= 0)) {
      throw new Error(`expected revision must be a non-negative integer, got ${expectedRevision}`);
    }
    const encoded = events.map((e) => ({
      id: e.id ?? randomUUID(),
      type: e.type,
      data: JSON.stringify(e.data),
      metadata: JSON.stringify(e.metadata ?? {}),
    }));
    const last = await this.dialect.append(client, streamName, encoded, expectedRevision);
    if (!last) {
      throw new WrongExpectedRevisionError(
        streamName,
        expectedRevision,
        await this.dialect.currentRevision(client, streamName),
      );
    }
    return { nextExpectedRevision: Number(last.stream_revision), position: toPosition(last) };
  }

  async readStream(streamName: string, { fromRevision = 0, maxCount = 1_000_000 } = {}): Promise<RecordedEvent[]> {
    const rows = await this.dialect.readStream(this.db.query.bind(this.db), streamName, fromRevision, maxCount);
    return rows.map(toRecordedEvent);
  }

  async readAt(places: readonly EventPlace[]): Promise<RecordedEvent[]> {
    if (places.length === 0) return [];
    return (await this.dialect.readAt(this.db.query.bind(this.db), places)).map(toRecordedEvent);
  }

  async readAll({ after = null, maxCount = this.options.pageSize, streamPrefixes }: ReadAllOptions = {}): Promise<
    RecordedEvent[]
  > {
    const rows = await this.dialect.readAll(
      this.db.query.bind(this.db),
      after ? parsePosition(after) : ['0', '0'],
      maxCount,
      streamPrefixes,
    );
    return rows.map(toRecordedEvent);
  }

  subscribeToAll(options: SubscribeOptions, handler: PageHandler): EventSubscription {
    return runSubscriptionLoop(
      {
        readPage: async (after, live) => {
          const page = this.fromTail(after) ?? (await this.readPage(after, live));
          const prefixes = options.streamPrefixes;
          return {
            events: prefixes?.length
              ? page.events.filter((event) => prefixes.some((prefix) => event.streamName.startsWith(prefix)))
              : page.events,
            end: page.events.length > 0 ? page.events[page.events.length - 1].position : after,
            full: page.full,
            heldBack: page.heldBack,
            asOf: page.asOf,
          };
        },
        appends: this.appends,
      },
      options.after ?? null,
      { pollIntervalMs: this.options.pollIntervalMs, minReadIntervalMs: this.options.minReadIntervalMs },
      handler,
    );
  }

  /** The page after `after` from the database, remembered in the tail segment. */
  private async readPage(
    after: string | null,
    live: boolean,
  ): Promise<{ events: RecordedEvent[]; full: boolean; heldBack: boolean; asOf: number }> {
    const asOf = this.appends.changeCount;
    // A live subscription's read is short and everything downstream waits for it: where
    // statements queue (PGlite, SQLite) it goes ahead of them. Catching up (full pages) queues.
    const { events, heldBack } = await (live
      ? this.livePage(after)
      : this.readLogPage(this.db.query.bind(this.db), after));
    const full = events.length === this.options.pageSize;
    if (events.length > 0) this.remember(after, events, asOf, full, heldBack);
    return { events, full, heldBack, asOf };
  }

  /** The page after `after`, and whether committed events wait behind the horizon (EventStoreDialect.readLogPage). */
  private async readLogPage(query: SqlDatabase['query'], after: string | null): Promise<LogPage> {
    const { rows, heldBack } = await this.dialect.readLogPage(
      query,
      after ? parsePosition(after) : ['0', '0'],
      this.options.pageSize,
    );
    return { events: rows.map(toRecordedEvent), heldBack };
  }

  /** The page after `after` from the tail segment, when `after` lies within it. */
  private fromTail(
    after: string | null,
  ): { events: RecordedEvent[]; full: boolean; heldBack: boolean; asOf: number } | undefined {
    const tail = this.tail;
    if (!tail || isAfter(tail.from, after) || !isAfter(tailEnd(tail), after)) return undefined;
    const first = after === tail.from ? 0 : tail.events.findIndex((event) => event.position === after) + 1;
    // A position inside the segment that is none of its events (another process's skipped rows cannot be: positions
    // come from events).
    if (first === 0 && after !== tail.from) return undefined;
    const events = tail.events.slice(first, first + this.options.pageSize);
    const toEnd = first + events.length === tail.events.length;
    return {
      events,
      full: !toEnd || tail.endFull,
      heldBack: toEnd && tail.endHeldBack,
      asOf: tail.asOf,
    };
  }

  /** Extends the tail segment by a page read after `after`, or starts it anew when the page ends later than it. */
  private remember(
    after: string | null,
    events: RecordedEvent[],
    asOf: number,
    endFull: boolean,
    endHeldBack: boolean,
  ): void {
    const tail = this.tail;
    if (tail && after === tailEnd(tail)) {
      tail.events.push(...events);
      Object.assign(tail, { asOf, endFull, endHeldBack });
    } else if (!tail || isAfter(events[events.length - 1].position, tailEnd(tail))) {
      this.tail = { from: after, events: [...events], asOf, endFull, endHeldBack };
    }
    const kept = this.tail!;
    const excess = kept.events.length - TAIL_PAGES * this.options.pageSize;
    if (excess > 0) {
      kept.from = kept.events[excess - 1].position;
      kept.events.splice(0, excess);
    }
  }

  /**
   * The page after `after` for a live subscription. Every subscription of the process is woken
   * by the same append and most are at the same position, so one read serves all those that
   * ask while it is under way, unless this process appended since it was asked for (it might
   * not hold that append's events). The events are shared: handlers only read them.
   */
  private livePage(after: string | null): Promise<LogPage> {
    const key = after ?? '';
    const shared = this.liveReads.get(key);
    if (shared && shared.changeCount === this.appends.changeCount) return shared.page;
    const read = {
      changeCount: this.appends.changeCount,
      page: this.readLogPage(this.db.queryAhead.bind(this.db), after),
    };
    this.liveReads.set(key, read);
    const forget = () => {
      if (this.liveReads.get(key) === read) this.liveReads.delete(key);
    };
    read.page.then(forget, forget);
    return read.page;
  }

  ping(): Promise<void> {
    return this.db.ping();
  }

  /** The database is owned by whoever opened it. */
  async close(): Promise<void> {
    await this.stopListening?.();
  }
}
