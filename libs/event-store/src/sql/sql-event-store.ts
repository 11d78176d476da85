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
import { EVENT_STORE_MIGRATIONS } from './migrations';

/*
 * Global order without skips: a bigserial alone is assigned at insert time, so a subscriber
 * reading "position > checkpoint" could pass a row whose transaction commits later. Each row
 * therefore records its transaction id, the global order is (transaction_id, global_position),
 * and readers only see rows whose transaction is older than every transaction still running
 * (pg_snapshot_xmin). A row that becomes visible later always sorts after what was read.
 * Writers of one stream take a per-stream advisory lock before writing, so their transaction
 * ids (assigned at the first write) follow the stream's revision order. Tables: migrations.ts.
 */

// Columns are cast to text (bigint and xid8 exceed JS numbers), so ORDER BY clauses must name
// the table's columns (es_events.x), not these text aliases.
const COLUMNS = `es_events.global_position::text as global_position, es_events.transaction_id::text as transaction_id,
  stream_name, es_events.stream_revision::text as stream_revision, event_id::text as event_id, event_type,
  data, metadata, recorded_at`;

interface EventRow {
  global_position: string;
  transaction_id: string;
  stream_name: string;
  stream_revision: string;
  event_id: string;
  event_type: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
  recorded_at: Date | string;
}

/**
 * Bumps the stream row according to the expectation; yields no row when it is not met. Every
 * variant reads from `locked`, so the stream's advisory lock is held before the statement
 * writes anything and therefore before PostgreSQL assigns its transaction id.
 */
function claimRevisions(expected: ExpectedRevision): string {
  if (expected === 'no_stream') {
    return `insert into es_streams (stream_name, revision) select $1, $2::bigint - 1 from locked
            on conflict (stream_name) do nothing returning revision`;
  }
  if (expected === 'any') {
    return `insert into es_streams as s (stream_name, revision) select $1, $2::bigint - 1 from locked
            on conflict (stream_name) do update set revision = s.revision + $2::bigint returning revision`;
  }
  const revisionMatches = expected === 'stream_exists' ? '' : `and revision = ${Number(expected)}::bigint`;
  return `update es_streams set revision = revision + $2::bigint from locked
          where stream_name = $1 ${revisionMatches} returning revision`;
}

const RETURNING =
  'stream_revision::text as stream_revision, global_position::text as global_position, transaction_id::text as transaction_id';

/**
 * Appends tell the subscriptions of other processes (their poll is only a fallback) once they
 * commit (CommitAnnouncer); the payload is the appending store's token, so its own subscriptions,
 * woken by the append itself, do not read twice.
 */
const APPENDS_CHANNEL = 'paygate_appends';

/** Appends events $3..$6 (arrays) to stream $1 claiming $2 revisions. */
const appendManyStatement = (expected: ExpectedRevision) =>
  `with locked as materialized (select pg_advisory_xact_lock(hashtext($1))),
   claimed as (${claimRevisions(expected)}),
   written as (
     insert into es_events (stream_name, stream_revision, event_id, event_type, data, metadata)
     select $1, claimed.revision - $2::bigint + e.ord, e.id, e.type, e.data::jsonb, e.metadata::jsonb
     from claimed, unnest($3::uuid[], $4::text[], $5::text[], $6::text[]) with ordinality as e(id, type, data, metadata, ord)
     order by e.ord
     returning stream_revision, global_position, transaction_id
   )
   select ${RETURNING} from written order by written.stream_revision desc limit 1`;

/**
 * The same for one event ($2 = 1), the usual append, with scalars: arrays cost PGlite more to
 * take apart and plan than the rest of the statement.
 */
const appendOneStatement = (expected: ExpectedRevision) =>
  `with locked as materialized (select pg_advisory_xact_lock(hashtext($1))),
   claimed as (${claimRevisions(expected)}),
   written as (
     insert into es_events (stream_name, stream_revision, event_id, event_type, data, metadata)
     select $1, claimed.revision, $3::uuid, $4::text, $5::text::jsonb, $6::text::jsonb from claimed
     returning stream_revision, global_position, transaction_id
   )
   select ${RETURNING} from written`;

/** How many pages of the log's tail a process keeps for its subscriptions that are behind. */
const TAIL_PAGES = 2;

const toPosition = (row: Pick<EventRow, 'transaction_id' | 'global_position'>) =>
  `${row.transaction_id}/${row.global_position}`;

function parsePosition(position: string): [string, string] {
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
 * commits later sorts after E: see the order above), so the segment stays true, and a
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

function toRecordedEvent(row: EventRow): RecordedEvent {
  return {
    id: row.event_id,
    type: row.event_type,
    streamName: row.stream_name,
    revision: Number(row.stream_revision),
    data: row.data,
    metadata: row.metadata,
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
   * Default 10 ms where statements run one at a time (PGlite: every read holds up every
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
  /** Tells other processes of this one's appends; none where no other process can read them (PGlite). */
  private readonly announcer?: CommitAnnouncer;
  private stopListening?: () => Promise<void>;

  private constructor(
    private readonly db: SqlDatabase,
    private readonly options: Required<SqlEventStoreOptions>,
  ) {
    // A notification lost with a failing database costs the other processes one fallback poll.
    if (db.shared) this.announcer = new CommitAnnouncer(db, APPENDS_CHANNEL, this.token, () => {});
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
    // Where statements run one at a time (PGlite), a transaction joins the others waiting and shares their commit.
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
    const [single] = events.length === 1 ? events : [];
    // One statement, so one implicit transaction (or part of the caller's): either every event is written or none.
    const rows = await client.query<{ stream_revision: string; global_position: string; transaction_id: string }>(
      single ? appendOneStatement(expectedRevision) : appendManyStatement(expectedRevision),
      single
        ? [
            streamName,
            1,
            single.id ?? randomUUID(),
            single.type,
            JSON.stringify(single.data),
            JSON.stringify(single.metadata ?? {}),
          ]
        : [
            streamName,
            events.length,
            events.map((e) => e.id ?? randomUUID()),
            events.map((e) => e.type),
            events.map((e) => JSON.stringify(e.data)),
            events.map((e) => JSON.stringify(e.metadata ?? {})),
          ],
    );
    if (rows.length === 0) {
      throw new WrongExpectedRevisionError(
        streamName,
        expectedRevision,
        await this.currentRevision(client, streamName),
      );
    }
    return { nextExpectedRevision: Number(rows[0].stream_revision), position: toPosition(rows[0]) };
  }

  async readStream(streamName: string, { fromRevision = 0, maxCount = 1_000_000 } = {}): Promise<RecordedEvent[]> {
    const rows = await this.db.query<EventRow>(
      `select ${COLUMNS} from es_events where stream_name = $1 and es_events.stream_revision >= $2
       order by es_events.stream_revision limit $3`,
      [streamName, fromRevision, maxCount],
    );
    return rows.map(toRecordedEvent);
  }

  async readAt(places: readonly EventPlace[]): Promise<RecordedEvent[]> {
    if (places.length === 0) return [];
    const rows = await this.db.query<EventRow>(
      `select ${COLUMNS} from es_events
       where (stream_name, stream_revision) in (select * from unnest($1::text[], $2::bigint[]))`,
      [places.map((place) => place.streamName), places.map((place) => place.revision)],
    );
    return rows.map(toRecordedEvent);
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    return this.readAllWith(this.db.query.bind(this.db), options);
  }

  private async readAllWith(
    query: SqlDatabase['query'],
    { after = null, maxCount = this.options.pageSize, streamPrefixes }: ReadAllOptions,
  ): Promise<RecordedEvent[]> {
    const [afterTransaction, afterPosition] = after ? parsePosition(after) : ['0', '0'];
    const prefixFilter = streamPrefixes?.length
      ? 'and exists (select 1 from unnest($4::text[]) as p(prefix) where starts_with(stream_name, p.prefix))'
      : '';
    const rows = await query<EventRow>(
      `select ${COLUMNS} from es_events
       where (es_events.transaction_id, es_events.global_position) > ($1::xid8, $2::bigint)
         and es_events.transaction_id < pg_snapshot_xmin(pg_current_snapshot())
         ${prefixFilter}
       order by es_events.transaction_id, es_events.global_position limit $3`,
      streamPrefixes?.length
        ? [afterTransaction, afterPosition, maxCount, streamPrefixes]
        : [afterTransaction, afterPosition, maxCount],
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
    // statements queue (PGlite) it goes ahead of them. Catching up (full pages) queues.
    const { events, heldBack } = await (live
      ? this.livePage(after)
      : this.readLogPage(this.db.query.bind(this.db), after));
    const full = events.length === this.options.pageSize;
    if (events.length > 0) this.remember(after, events, asOf, full, heldBack);
    return { events, full, heldBack, asOf };
  }

  /**
   * The page after `after`, and whether events committed by transactions at or past the horizon
   * exist: a transaction that began earlier and still runs (any schema's, in any process: the
   * horizon is the server's) holds them back, and its commit notifies nobody here.
   */
  private async readLogPage(query: SqlDatabase['query'], after: string | null): Promise<LogPage> {
    const [afterTransaction, afterPosition] = after ? parsePosition(after) : ['0', '0'];
    const rows = await query<Partial<EventRow> & { held_back: boolean }>(
      `select held.back as held_back, page.* from
         (select exists (select 1 from es_events
                         where transaction_id >= pg_snapshot_xmin(pg_current_snapshot())) as back) held
         left join lateral (
           select ${COLUMNS}, es_events.transaction_id as order_transaction, es_events.global_position as order_position
           from es_events
           where (es_events.transaction_id, es_events.global_position) > ($1::xid8, $2::bigint)
             and es_events.transaction_id < pg_snapshot_xmin(pg_current_snapshot())
           order by es_events.transaction_id, es_events.global_position limit $3
         ) page on true
       order by page.order_transaction, page.order_position`,
      [afterTransaction, afterPosition, this.options.pageSize],
    );
    return {
      events: rows.filter((row) => row.global_position != null).map((row) => toRecordedEvent(row as EventRow)),
      heldBack: rows.length > 0 && rows[0].held_back === true,
    };
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

  private async currentRevision(client: SqlClient, streamName: string): Promise<number | 'no_stream'> {
    const rows = await client.query<{ revision: string }>(
      'select revision::text as revision from es_streams where stream_name = $1',
      [streamName],
    );
    return rows.length ? Number(rows[0].revision) : 'no_stream';
  }
}
