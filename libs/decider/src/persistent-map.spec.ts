/** PersistentMap: the immutable map deciders keep growing state in (the wallet ledger's idempotency ids). */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { PersistentMap } from './persistent-map';

// Two pairs of keys whose FNV-1a hashes are equal (found by search), so buckets are exercised.
const COLLIDING = [
  ['hold-329599', 'hold-532382'],
  ['hold-329598', 'hold-532383'],
];

describe('PersistentMap', () => {
  it('behaves like a Map under random sets, and every earlier version stays as it was', () => {
    const key = fc.oneof(fc.string({ maxLength: 3 }), fc.constantFrom(...COLLIDING.flat()));
    fc.assert(
      fc.property(fc.array(fc.tuple(key, fc.integer()), { maxLength: 100 }), (operations) => {
        const model = new Map<string, number>();
        const versions: Array<[PersistentMap<number>, Map<string, number>]> = [[PersistentMap.empty(), new Map()]];
        let map = PersistentMap.empty<number>();
        for (const [k, value] of operations) {
          map = map.set(k, value);
          model.set(k, value);
          versions.push([map, new Map(model)]);
        }
        for (const [version, expected] of versions) {
          assert.equal(version.size, expected.size);
          assert.deepEqual(new Map(version), expected);
          for (const k of expected.keys()) assert.equal(version.get(k), expected.get(k));
        }
        assert.equal(map.get('absent key, longer than any generated'), undefined);
      }),
      { seed: 42, numRuns: 200 },
    );
  });

  it('keeps colliding keys apart and replaces a value in place', () => {
    let map = PersistentMap.of([
      [COLLIDING[0][0], 1],
      [COLLIDING[0][1], 2],
    ]);
    expect([map.get(COLLIDING[0][0]), map.get(COLLIDING[0][1]), map.size]).toEqual([1, 2, 2]);
    map = map.set(COLLIDING[0][1], 3).set(COLLIDING[1][0], 4);
    expect(new Map(map)).toEqual(
      new Map([
        [COLLIDING[0][0], 1],
        [COLLIDING[0][1], 3],
        [COLLIDING[1][0], 4],
      ]),
    );
  });

  it('maps with the same contents built in the same order are equal', () => {
    const entries: Array<[string, number]> = Array.from({ length: 500 }, (_, i) => [`transfer-${i}`, i]);
    expect(PersistentMap.of(entries)).toEqual(PersistentMap.of(entries));
    expect([...PersistentMap.of(entries).keys()].sort()).toEqual(entries.map(([k]) => k).sort());
  });

  it('refuses undefined values, which get() could not tell from absence', () => {
    expect(() => PersistentMap.empty<number | undefined>().set('k', undefined)).toThrow(TypeError);
  });
});
