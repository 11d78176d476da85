import { eventReader, schemaVersionOf, storedEvent, UnknownEventVersion } from './event-reader';

type LedgerEvent =
  { type: 'Opened'; data: { owner: string } } | { type: 'Moved'; data: { amount: number; unit: string } };

/** A family at version 3: Moved's amount was a string at 1, and gained its unit at 3; Opened never changed. */
const readLedgerEvent = eventReader<LedgerEvent>({
  types: ['Opened', 'Moved'],
  currentVersion: 3,
  upcasters: {
    Moved: {
      1: (data) => ({ ...data, amount: Number(data.amount) }),
      2: (data) => ({ ...data, unit: 'minor' }),
    },
  },
});

describe('eventReader', () => {
  it('reads an event of the current version as stored', () => {
    expect(readLedgerEvent({ type: 'Moved', data: { amount: 5, unit: 'cents' }, schemaVersion: 3 })).toEqual({
      type: 'Moved',
      data: { amount: 5, unit: 'cents' },
    });
  });

  it('upcasts an old event step by step, each step of its own type', () => {
    expect(readLedgerEvent({ type: 'Moved', data: { amount: '12' }, schemaVersion: 1 })).toEqual({
      type: 'Moved',
      data: { amount: 12, unit: 'minor' },
    });
    expect(readLedgerEvent({ type: 'Moved', data: { amount: 7 }, schemaVersion: 2 })).toEqual({
      type: 'Moved',
      data: { amount: 7, unit: 'minor' },
    });
  });

  it('leaves a type without upcasters as it was written at any version it reads', () => {
    expect(readLedgerEvent({ type: 'Opened', data: { owner: 'o-1' }, schemaVersion: 1 })).toEqual({
      type: 'Opened',
      data: { owner: 'o-1' },
    });
  });

  it('does not take another type as its own (a published integration event in the same stream)', () => {
    expect(readLedgerEvent({ type: 'ledger.Settled', data: {}, schemaVersion: 1 })).toBeUndefined();
  });

  it('stops at a version from a newer release, or one that cannot be, rather than misread it', () => {
    expect(() => readLedgerEvent({ type: 'Moved', data: {}, schemaVersion: 4 })).toThrow(
      new UnknownEventVersion('Moved version 4 is not one this service reads (1 to 3)'),
    );
    expect(() => readLedgerEvent({ type: 'Opened', data: {}, schemaVersion: 0 })).toThrow(UnknownEventVersion);
    expect(() => readLedgerEvent({ type: 'Opened', data: {}, schemaVersion: 1.5 })).toThrow(UnknownEventVersion);
  });
});

describe('schemaVersionOf and storedEvent', () => {
  it('take metadata.schemaVersion, and 1 when absent or not a number', () => {
    expect(schemaVersionOf({ schemaVersion: 2, correlationId: 'c' })).toBe(2);
    expect(schemaVersionOf({})).toBe(1);
    expect(schemaVersionOf({ schemaVersion: '2' })).toBe(1);
    expect(storedEvent({ type: 'Opened', data: { owner: 'o' }, metadata: { schemaVersion: 3 } })).toEqual({
      type: 'Opened',
      data: { owner: 'o' },
      schemaVersion: 3,
    });
  });
});
