import { ANY, EVENT_TYPE, NO_STREAM, STREAM_EXISTS, STREAM_NAME } from '@kurrent/kurrentdb-client';
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

describe('KurrentDB positions', () => {
  it('encodes the commit/prepare pair and parses it back, beyond the safe integer range', () => {
    const position = { commit: 2n ** 63n - 1n, prepare: 12345n };
    expect(encodePosition(position)).toBe('9223372036854775807/12345');
    expect(parsePosition(encodePosition(position))).toEqual(position);
  });

  it('rejects strings that are not positions of this store', () => {
    for (const bad of ['', '12', '1/2/3', '-1/2', 'a/b', '1/2 '])
      expect(() => parsePosition(bad)).toThrow('not a position');
  });

  it('orders by commit, then prepare', () => {
    expect(comparePositions({ commit: 1n, prepare: 9n }, { commit: 2n, prepare: 0n })).toBeLessThan(0);
    expect(comparePositions({ commit: 5n, prepare: 7n }, { commit: 5n, prepare: 6n })).toBeGreaterThan(0);
    expect(comparePositions({ commit: 5n, prepare: 5n }, { commit: 5n, prepare: 5n })).toBe(0);
  });
});

describe('KurrentDB connection strings', () => {
  it.each([
    ['kurrentdb://localhost:2113?tls=false', 'kurrentdb://localhost:2113?tls=false'],
    ['kdb://admin:changeit@host:2113', 'kurrentdb://admin:changeit@host:2113'],
    ['esdb://host:2113?tls=false', 'kurrentdb://host:2113?tls=false'],
    ['eventstore://host:2113', 'kurrentdb://host:2113'],
    ['esdb+discover://cluster.example:2113', 'kurrentdb+discover://cluster.example:2113'],
    ['kurrent+discover://cluster.example:2113', 'kurrentdb+discover://cluster.example:2113'],
  ])('rewrites %s for the client', (url, expected) => {
    expect(toConnectionString(url)).toBe(expected);
  });

  it('refuses other schemes without echoing credentials', () => {
    expect(() => toConnectionString('postgres://user:secret@host/db')).toThrow('not a KurrentDB URL: "postgres://…"');
  });
});

describe('KurrentDB revisions', () => {
  it('maps expected revisions to stream states', () => {
    expect(toStreamState('no_stream')).toBe(NO_STREAM);
    expect(toStreamState('stream_exists')).toBe(STREAM_EXISTS);
    expect(toStreamState('any')).toBe(ANY);
    expect(toStreamState(0)).toBe(0n);
    expect(toStreamState(41)).toBe(41n);
    expect(() => toStreamState(-1)).toThrow('non-negative integer');
    expect(() => toStreamState(1.5)).toThrow('non-negative integer');
  });

  it('maps the actual state of a conflict, including -1 for a missing stream', () => {
    expect(toActualRevision(NO_STREAM)).toBe('no_stream');
    expect(toActualRevision(-1n)).toBe('no_stream');
    expect(toActualRevision(0n)).toBe(0);
    expect(toActualRevision(7n)).toBe(7);
  });
});

describe('KurrentDB system events', () => {
  it('treats $ streams and $ event types as system events', () => {
    expect(isSystemEvent('$stats-127.0.0.1:2113', 'StatsCollected')).toBe(true);
    expect(isSystemEvent('payment-1', '$streamDeleted')).toBe(true);
    expect(isSystemEvent('payment-1', 'PaymentCaptured')).toBe(false);
  });

  it('filters on stream prefixes when given, else excludes system event types server-side', () => {
    expect(allFilter(['payment-', 'refund-'])).toMatchObject({
      filterOn: STREAM_NAME,
      prefixes: ['payment-', 'refund-'],
    });
    expect(allFilter([])).toMatchObject({ filterOn: EVENT_TYPE, regex: '^[^$].*' });
    expect(allFilter()).toMatchObject({ filterOn: EVENT_TYPE, regex: '^[^$].*' });
  });
});
