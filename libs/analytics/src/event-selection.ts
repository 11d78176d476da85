import { comparePositions, isPosition, type EventStore, type RecordedEvent } from '@paygate/event-store';
import { CliError } from './cli-error';

/** Which events a command reads: every filter is optional, and all given must hold. */
export interface EventSelection {
  /** Streams whose name starts with one of these (`collection-`, `wallet-`). */
  streamPrefixes?: string[];
  types?: string[];
  merchantId?: string;
  /** Recorded at or after this instant. */
  since?: Date;
  /** Recorded before this instant. */
  until?: Date;
  /** Global positions after this one (exclusive): where an interrupted command resumes. */
  after?: string;
  /** Global positions up to and including this one. */
  through?: string;
  /** At most this many events. */
  limit?: number;
}

/** Refuses a selection that could never be what was meant, before any store is opened. */
export function checkSelection(selection: EventSelection): void {
  for (const [option, position] of [
    ['--after', selection.after],
    ['--through', selection.through],
  ] as const) {
    if (position !== undefined && !isPosition(position))
      throw new CliError(
        `${option} ${JSON.stringify(position)} is not a position (two numbers such as 1234/5678, as printed by an export)`,
      );
  }
  if (
    selection.after !== undefined &&
    selection.through !== undefined &&
    comparePositions(selection.after, selection.through) >= 0
  ) {
    throw new CliError(`empty position range: --after ${selection.after} is not before --through ${selection.through}`);
  }
  if (selection.since && selection.until && selection.since >= selection.until) {
    throw new CliError(
      `empty time range: --since ${selection.since.toISOString()} is not before --until ${selection.until.toISOString()}`,
    );
  }
  if (selection.limit !== undefined && !(Number.isSafeInteger(selection.limit) && selection.limit > 0))
    throw new CliError(`--limit must be a positive integer`);
}

/** The merchant an event names: its own field, that of the record it publishes, or that of a money-out's request. */
function merchantNamedBy(data: Record<string, unknown>): string | undefined {
  for (const holder of [data, data.collection, data.payment, data.request, data.refund, data.payout]) {
    const merchantId = (holder as Record<string, unknown> | undefined)?.merchantId;
    if (typeof merchantId === 'string') return merchantId;
  }
  return undefined;
}

/**
 * Every stream belongs to one merchant, named by its first event (CollectionInitiated,
 * ServicePaymentOpened, MoneyOutRequested, every wallet event); later events of a collection name only the
 * collection. The owner is remembered per stream, and read from the stream's first event when
 * a command starts past it (a resumed export).
 */
class StreamOwners {
  private readonly owners = new Map<string, string | null>();

  constructor(private readonly store: EventStore) {}

  async of(event: RecordedEvent): Promise<string | null> {
    const known = this.owners.get(event.streamName);
    if (known !== undefined) return known;
    const named =
      merchantNamedBy(event.data) ??
      (event.revision === 0
        ? undefined
        : merchantNamedBy((await this.store.readStream(event.streamName, { maxCount: 1 }))[0]?.data ?? {}));
    this.owners.set(event.streamName, named ?? null);
    return named ?? null;
  }
}

const PAGE_SIZE = 500;

/**
 * The selected events in global order, read a page at a time. Prefixes are the store's filter;
 * the others are applied here. Stops at `through` and after `limit` events, or when `signal`
 * aborts (after the event being handled).
 */
export async function* selectEvents(
  store: EventStore,
  selection: EventSelection,
  signal?: AbortSignal,
): AsyncGenerator<RecordedEvent> {
  const types = selection.types?.length ? new Set(selection.types) : undefined;
  const owners = selection.merchantId === undefined ? undefined : new StreamOwners(store);
  let after = selection.after ?? null;
  let selected = 0;
  while (!signal?.aborted) {
    const page = await store.readAll({ after, maxCount: PAGE_SIZE, streamPrefixes: selection.streamPrefixes });
    for (const event of page) {
      if (signal?.aborted) return;
      if (selection.through !== undefined && comparePositions(event.position, selection.through) > 0) return;
      // Owners first: a stream's first event names its merchant, whatever the other filters keep.
      if (owners && (await owners.of(event)) !== selection.merchantId) continue;
      if (types && !types.has(event.type)) continue;
      const recordedAt = new Date(event.recordedAt);
      if ((selection.since && recordedAt < selection.since) || (selection.until && recordedAt >= selection.until))
        continue;
      yield event;
      selected += 1;
      if (selection.limit !== undefined && selected >= selection.limit) return;
    }
    if (page.length < PAGE_SIZE) return;
    after = page[page.length - 1].position;
  }
}
