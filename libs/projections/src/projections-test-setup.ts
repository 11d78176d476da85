import { randomUUID } from 'node:crypto';
import { eventReader } from '@paygate/decider';
import { SqlEventStore, type EventStore, type EventToAppend, type RecordedEvent } from '@paygate/event-store';
import type { SqlDatabase } from '@paygate/sql';
import { describeOnAllSqlEngines, type SqlEngineUnderTest } from '@paygate/testing';
import { Projection, type StreamReadModel } from './projection';

/**
 * A tally per stream, as a context would declare its read model: Opened names the owner, Added
 * adds (version 1 wrote the amount as a string: read upcast), Closed ends it. Every change is
 * logged alongside in `tally_log`, in the row's transaction.
 */
export type TallyEvent =
  | { type: 'Opened'; data: { owner: string } }
  | { type: 'Added'; data: { amount: number } }
  | { type: 'Closed'; data: Record<string, never> };
export interface Tally {
  owner: string;
  total: number;
  open: boolean;
}

export const readTallyEvent = eventReader<TallyEvent>({
  types: ['Opened', 'Added', 'Closed'],
  currentVersion: 2,
  upcasters: { Added: { 1: (data) => ({ amount: Number(data.amount) }) } },
});

export function evolveTally(tally: Tally | null, event: TallyEvent): Tally | null {
  if (event.type === 'Opened') return { owner: event.data.owner, total: 0, open: true };
  if (!tally) return null;
  return event.type === 'Added' ? { ...tally, total: tally.total + event.data.amount } : { ...tally, open: false };
}

export function tallyView(streamPrefix: string): StreamReadModel<TallyEvent, Tally> {
  return {
    streamPrefix,
    read: readTallyEvent,
    evolve: evolveTally,
    table: 'tally_view',
    key: (tallyId) => ({ tally_id: tallyId }),
    columns: { owner: 'text', total: 'bigint', state: 'jsonb' },
    toColumns: (tally) => ({ owner: tally.owner, total: tally.total, state: tally }),
    fromColumns: (values) => values.state as Tally,
    async alongside(tx, changes) {
      for (const { streamId, event } of changes)
        await tx.query('insert into tally_log (tally_id, event_type) values ($1, $2)', [streamId, event.type]);
    },
  };
}

/** The tallies of `t`, whose writes alongside fail ("disk full") for a change with Closed until `recover` is called. */
export function failingOnClose(t: ProjectionUnderTest): { projection: Projection; recover(): void } {
  const base = tallyView(t.prefix);
  let failing = true;
  const flakyView: StreamReadModel<TallyEvent, Tally> = {
    ...base,
    alongside: (tx, changes) =>
      failing && changes.some(({ event }) => event.type === 'Closed')
        ? Promise.reject(new Error('disk full'))
        : base.alongside!(tx, changes),
  };
  return { projection: new Projection('flaky', [flakyView], t.db, t.store), recover: () => (failing = false) };
}

type Credited = { type: 'Credited'; data: { owner: string; amount: number } };

/**
 * Credits per owner, one stream each: a row keyed by what the event says rather than by the stream's name (as wallet
 * balances are).
 */
export function ownerCredits(streamPrefix: string): StreamReadModel<Credited, { total: number }> {
  return {
    streamPrefix,
    read: eventReader<Credited>({ types: ['Credited'], currentVersion: 1 }),
    evolve: (row, event) => ({ total: (row?.total ?? 0) + event.data.amount }),
    table: 'owner_credits',
    key: (_, event) => ({ owner: event.data.owner }),
    columns: { total: 'bigint' },
    toColumns: (row) => row,
    fromColumns: (values) => ({ total: Number(values.total) }),
  };
}

/** A `jsonb` column's type: SQLite keeps JSON as text. */
const JSON_TYPE: Record<SqlDatabase['dialect'], string> = { postgres: 'jsonb', sqlite: 'text' };

const tables = (db: SqlDatabase) => [
  `create table tally_view (tally_id text primary key, owner text not null, total bigint not null, state ${JSON_TYPE[db.dialect]} not null, revision integer not null)`,
  'create table tally_log (tally_id text not null, event_type text not null)',
  'create table owner_credits (owner text primary key, total bigint not null, revision integer not null)',
];

export interface ProjectionUnderTest {
  db: SqlDatabase;
  store: EventStore;
  /**
   * Each test's streams start with this prefix, so none reads another's from the shared store; the tables start empty.
   */
  prefix: string;
  projection: Projection;
  append(
    streamId: string,
    events: Array<[type: string, data: Record<string, unknown>, version?: number]>,
  ): Promise<RecordedEvent[]>;
  row(tallyId: string): Promise<{ owner: string; total: number; state: Tally; revision: number } | undefined>;
  log(tallyId: string): Promise<string[]>;
}

function suiteOn(openDb: () => Promise<SqlEngineUnderTest>, suite: (t: ProjectionUnderTest) => void): void {
  const t = {} as ProjectionUnderTest;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const opened = await openDb();
    close = opened.close;
    t.db = opened.db;
    for (const statement of tables(t.db)) await t.db.query(statement);
    t.store = await SqlEventStore.create(t.db);
    t.append = async (streamId, events) => {
      const toAppend: EventToAppend[] = events.map(([type, data, version = 2]) => ({
        id: randomUUID(),
        type,
        data,
        metadata: { schemaVersion: version },
      }));
      await t.store.appendToStream(`${t.prefix}${streamId}`, toAppend);
      return (await t.store.readStream(`${t.prefix}${streamId}`)).slice(-events.length);
    };
    t.row = async (tallyId) => {
      const [row] = await t.db.query<{
        owner: string;
        total: string | number;
        state: Tally | string;
        revision: number;
      }>('select owner, total, state, revision from tally_view where tally_id = $1', [tallyId]);
      return (
        row && {
          ...row,
          total: Number(row.total),
          state: typeof row.state === 'string' ? (JSON.parse(row.state) as Tally) : row.state,
        }
      );
    };
    t.log = async (tallyId) =>
      (await t.db.query<{ event_type: string }>('select event_type from tally_log where tally_id = $1', [tallyId])).map(
        (row) => row.event_type,
      );
  });
  beforeEach(async () => {
    for (const table of ['tally_view', 'tally_log', 'owner_credits']) await t.db.query(`delete from ${table}`);
    t.prefix = `tally${randomUUID().replace(/-/g, '').slice(0, 10)}-`;
    t.projection = new Projection('tallies', [tallyView(t.prefix)], t.db, t.store);
  });
  afterAll(async () => {
    await t.store?.close();
    await close?.();
  });
  suite(t);
}

/** Runs `suite` on every engine: PGlite, SQLite and, when STORE_URL names one, PostgreSQL. */
export function onEveryEngine(title: string, suite: (t: ProjectionUnderTest) => void): void {
  describeOnAllSqlEngines(title, 'projections', (open) => suiteOn(open, suite));
}
