/**
 * Which events an export or replay reads (selectEvents, checkSelection): every filter given holds,
 * ranges mean what the CLI says, a merchant's streams are found by their first event, and a
 * selection that could only be a mistake is refused before any store is opened.
 */
import { openEventStore, type EventStore, type RecordedEvent } from '@paygate/event-store';
import { openSqlDatabase, type SqlDatabase } from '@paygate/sql';
import { CliError } from './cli-error';
import { checkSelection, selectEvents, type EventSelection } from './event-selection';

let sql: SqlDatabase;
let store: EventStore;
/** Every event appended, in global order. */
let all: RecordedEvent[];

beforeAll(async () => {
  sql = await openSqlDatabase('pglite://memory');
  store = await openEventStore(sql);
  await store.appendToStream('collection-A', [
    { type: 'CollectionInitiated', data: { merchantId: 'mer_one', amount: 81000 } },
  ]);
  await store.appendToStream('collection-B', [
    { type: 'CollectionInitiated', data: { merchantId: 'mer_two', amount: 500 } },
  ]);
  await store.appendToStream('wallet-mer_one', [
    { type: 'WalletToppedUp', data: { merchantId: 'mer_one', amount: 1000 } },
  ]);
  await store.appendToStream('collection-A', [
    { type: 'CollectionSucceeded', data: { collection: { internalReference: 'A' } } },
  ]);
  await store.appendToStream('collection-B', [{ type: 'CollectionFailed', data: { reason: 'NOT_ENOUGH_FUNDS' } }]);
  // More than one page of the store's reads, so every filter is also seen across pages.
  await store.appendToStream('collection-C', [
    { type: 'CollectionInitiated', data: { merchantId: 'mer_two' } },
    ...Array.from({ length: 1100 }, () => ({ type: 'CollectionNoted', data: {} })),
  ]);
  all = await collect({});
});
afterAll(async () => {
  await store.close();
  await sql.close();
});

async function collect(selection: EventSelection, signal?: AbortSignal): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  for await (const event of selectEvents(store, selection, signal)) events.push(event);
  return events;
}

const described = (events: RecordedEvent[]) => events.map((event) => `${event.streamName}:${event.type}`);

describe('selectEvents', () => {
  it('reads every event once, in global order, across pages', () => {
    expect(all).toHaveLength(1106);
    expect(new Set(all.map((event) => event.id)).size).toBe(1106);
    expect(described(all.slice(0, 5))).toEqual([
      'collection-A:CollectionInitiated',
      'collection-B:CollectionInitiated',
      'wallet-mer_one:WalletToppedUp',
      'collection-A:CollectionSucceeded',
      'collection-B:CollectionFailed',
    ]);
  });

  it("finds a merchant's events, also those that do not name it, also when it starts past the one that does", async () => {
    expect(described(await collect({ merchantId: 'mer_one' }))).toEqual([
      'collection-A:CollectionInitiated',
      'wallet-mer_one:WalletToppedUp',
      'collection-A:CollectionSucceeded',
    ]);
    expect(described(await collect({ merchantId: 'mer_one', after: all[0].position }))).toEqual([
      'wallet-mer_one:WalletToppedUp',
      'collection-A:CollectionSucceeded',
    ]);
    expect(await collect({ merchantId: 'mer_two' })).toHaveLength(1103);
  });

  it('reads after a position exclusive, through one inclusive', async () => {
    expect(await collect({ after: all[1].position, through: all[3].position })).toEqual(all.slice(2, 4));
  });

  it('keeps only events that pass every filter given', async () => {
    const selected = await collect({
      streamPrefixes: ['collection-'],
      types: ['CollectionInitiated', 'WalletToppedUp'],
      merchantId: 'mer_two',
    });
    expect(described(selected)).toEqual(['collection-B:CollectionInitiated', 'collection-C:CollectionInitiated']);
  });

  it('keeps events recorded since an instant inclusive, until one exclusive', async () => {
    const instant = new Date(all[2].recordedAt);
    const since = await collect({ since: instant, streamPrefixes: ['wallet-'] });
    const until = await collect({ until: instant, streamPrefixes: ['wallet-'] });
    expect([since.length, until.length]).toEqual([1, 0]);
  });

  it('stops after limit events, and at once when the signal aborts', async () => {
    expect(await collect({ limit: 3 })).toEqual(all.slice(0, 3));
    const aborting = new AbortController();
    const read: RecordedEvent[] = [];
    for await (const event of selectEvents(store, {}, aborting.signal)) {
      read.push(event);
      if (read.length === 2) aborting.abort();
    }
    expect(read).toEqual(all.slice(0, 2));
  });

  // Appends past `all`: the tests above read only up to it.
  it("finds a merchant's refunds and payouts, whose first event names it in the request", async () => {
    const last = all[all.length - 1].position;
    await store.appendToStream('refund-mer_one:r1', [
      { type: 'MoneyOutRequested', data: { request: { merchantId: 'mer_one', kind: 'REFUND', amount: 500 } } },
      { type: 'MoneyOutSent', data: { at: '2026-11-28T10:00:00.000Z' } },
    ]);
    await store.appendToStream('payout-mer_two:p1', [
      { type: 'MoneyOutRequested', data: { request: { merchantId: 'mer_two', kind: 'PAYOUT', amount: 500 } } },
    ]);
    expect(described(await collect({ merchantId: 'mer_one', after: last }))).toEqual([
      'refund-mer_one:r1:MoneyOutRequested',
      'refund-mer_one:r1:MoneyOutSent',
    ]);
  });
});

describe('checkSelection', () => {
  const refusal = (selection: EventSelection) => {
    try {
      checkSelection(selection);
    } catch (error) {
      if (error instanceof CliError) return { message: error.message, exitCode: error.exitCode };
      throw error;
    }
    return undefined;
  };

  it('lets a sensible selection pass', () => {
    expect(
      refusal({
        after: '10/10',
        through: '11/0',
        since: new Date('2030-01-01'),
        until: new Date('2030-01-02'),
        limit: 5,
      }),
    ).toBeUndefined();
  });

  it.each([
    [{ after: '1234' }, '--after "1234" is not a position (two numbers such as 1234/5678, as printed by an export)'],
    [
      { through: 'last' },
      '--through "last" is not a position (two numbers such as 1234/5678, as printed by an export)',
    ],
    [{ after: '12/5', through: '12/5' }, 'empty position range: --after 12/5 is not before --through 12/5'],
    [{ after: '12/5', through: '9/99' }, 'empty position range: --after 12/5 is not before --through 9/99'],
    [
      { since: new Date('2030-01-02T00:00:00Z'), until: new Date('2030-01-01T00:00:00Z') },
      'empty time range: --since 2030-01-02T00:00:00.000Z is not before --until 2030-01-01T00:00:00.000Z',
    ],
    [{ limit: 0 }, '--limit must be a positive integer'],
    [{ limit: 2.5 }, '--limit must be a positive integer'],
  ])('refuses %o as a wrong command line (exit 2)', (selection, message) => {
    expect(refusal(selection)).toEqual({ message, exitCode: 2 });
  });
});
