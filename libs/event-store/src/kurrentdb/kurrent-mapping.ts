import {
  ANY,
  NO_STREAM,
  STREAM_EXISTS,
  excludeSystemEvents,
  streamNameFilter,
  type AppendStreamState,
  type CurrentStreamState,
  type Filter,
  type Position,
} from '@kurrent/kurrentdb-client';
import type { ExpectedRevision } from '../event-store';

const SCHEME = /^(kurrentdb|kurrent|kdb|esdb|eventstore)(\+discover)?:\/\//;

/**
 * The client parses kurrentdb/kurrent/kdb/esdb, but its native bridge rejects `eventstore://`
 * and `esdb://` logs a deprecation warning, so every accepted alias becomes `kurrentdb://`.
 */
export function toConnectionString(url: string): string {
  const match = SCHEME.exec(url);
  if (!match) throw new Error(`not a KurrentDB URL: "${url.split('://')[0]}://…"`);
  return `kurrentdb${match[2] ?? ''}://${url.slice(match[0].length)}`;
}

export function encodePosition({ commit, prepare }: Position): string {
  return `${commit}/${prepare}`;
}

export function parsePosition(position: string): Position {
  const match = /^(\d+)\/(\d+)$/.exec(position);
  if (!match) throw new Error(`not a position of this event store: ${position}`);
  return { commit: BigInt(match[1]), prepare: BigInt(match[2]) };
}

/** $all order: by commit position, then by prepare position within one commit. */
export function comparePositions(a: Position, b: Position): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}

export function toStreamState(expected: ExpectedRevision): AppendStreamState {
  switch (expected) {
    case 'no_stream':
      return NO_STREAM;
    case 'stream_exists':
      return STREAM_EXISTS;
    case 'any':
      return ANY;
    default:
      if (!(Number.isSafeInteger(expected) && expected >= 0)) {
        throw new Error(`expected revision must be a non-negative integer, got ${expected}`);
      }
      return BigInt(expected);
  }
}

/** Servers report a missing stream as `no_stream` or, from the error metadata path, as -1. */
export function toActualRevision(actual: CurrentStreamState): number | 'no_stream' {
  return actual === NO_STREAM || actual < 0n ? 'no_stream' : Number(actual);
}

/** Streams and event types starting with `$` belong to the server (metadata, projections, stats). */
export function isSystemEvent(streamName: string, type: string): boolean {
  return streamName.startsWith('$') || type.startsWith('$');
}

/**
 * A $all filter holds one expression, so system events are excluded server-side only when no
 * prefixes are given; callers still drop system events matching a prefix (see isSystemEvent).
 */
export function allFilter(streamPrefixes?: string[]): Filter {
  return streamPrefixes?.length ? streamNameFilter({ prefixes: streamPrefixes }) : excludeSystemEvents();
}
