/**
 * An immutable string-keyed map with structural sharing (a hash array mapped trie without
 * bitmap compression), for decider state that a long stream keeps adding to: `set` returns a new
 * map and copies only the path to the key, at most seven 32-slot nodes, so folding a stream stays
 * linear where copying a Map per event would be quadratic. Insert-only tries of the same keys
 * have the same shape, so two maps with equal contents built in the same order compare equal
 * structurally (jest's toEqual), as a state folded from the stored events must equal the one
 * kept step by step.
 */
interface Entry<V> {
  readonly key: string;
  readonly hash: number;
  readonly value: V;
}
/** Keys whose 32-bit hashes are equal. */
interface Bucket<V> {
  readonly bucket: readonly Entry<V>[];
}
type Slot<V> = Entry<V> | Bucket<V> | Branch<V> | undefined;
type Branch<V> = readonly Slot<V>[];

const BITS = 5;
const WIDTH = 1 << BITS;
const MASK = WIDTH - 1;

/** FNV-1a, 32 bits. */
function hashOf(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

const isBranch = <V>(slot: Slot<V>): slot is Branch<V> => Array.isArray(slot);
const isBucket = <V>(slot: Slot<V>): slot is Bucket<V> =>
  slot !== undefined && !Array.isArray(slot) && 'bucket' in slot;

export class PersistentMap<V> implements ReadonlyMap<string, V> {
  private static readonly EMPTY_ROOT: Branch<never> = Object.freeze(new Array<Slot<never>>(WIDTH).fill(undefined));

  private constructor(
    private readonly root: Branch<V>,
    readonly size: number,
  ) {}

  static empty<V>(): PersistentMap<V> {
    return new PersistentMap<V>(PersistentMap.EMPTY_ROOT, 0);
  }

  static of<V>(entries: Iterable<readonly [string, V]>): PersistentMap<V> {
    let map = PersistentMap.empty<V>();
    for (const [key, value] of entries) map = map.set(key, value);
    return map;
  }

  get(key: string): V | undefined {
    const hash = hashOf(key);
    let node: Branch<V> = this.root;
    for (let shift = 0; ; shift += BITS) {
      const slot = node[(hash >>> shift) & MASK];
      if (slot === undefined) return undefined;
      if (isBranch(slot)) {
        node = slot;
        continue;
      }
      if (isBucket(slot)) return slot.bucket.find((entry) => entry.key === key)?.value;
      return slot.key === key ? slot.value : undefined;
    }
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  /**
   * A new map with `key` set to `value` (undefined values are not supported: `get` could not tell them from absence).
   */
  set(key: string, value: V): PersistentMap<V> {
    if (value === undefined) throw new TypeError('PersistentMap does not store undefined');
    const added = !this.has(key);
    return new PersistentMap(setIn(this.root, { key, hash: hashOf(key), value }, 0), added ? this.size + 1 : this.size);
  }

  *entries(): MapIterator<[string, V]> {
    for (const entry of entriesOf(this.root)) yield [entry.key, entry.value];
  }

  *keys(): MapIterator<string> {
    for (const entry of entriesOf(this.root)) yield entry.key;
  }

  *values(): MapIterator<V> {
    for (const entry of entriesOf(this.root)) yield entry.value;
  }

  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }

  forEach(callback: (value: V, key: string, map: ReadonlyMap<string, V>) => void): void {
    for (const [key, value] of this.entries()) callback(value, key, this);
  }
}

function setIn<V>(node: Branch<V>, entry: Entry<V>, shift: number): Branch<V> {
  const index = (entry.hash >>> shift) & MASK;
  const slot = node[index];
  const copy = node.slice();
  if (slot === undefined) copy[index] = entry;
  else if (isBranch(slot)) copy[index] = setIn(slot, entry, shift + BITS);
  else if (isBucket(slot)) {
    if (slot.bucket[0].hash === entry.hash)
      copy[index] = { bucket: [...slot.bucket.filter((other) => other.key !== entry.key), entry] };
    else copy[index] = setIn(setInEach(slot.bucket, shift + BITS), entry, shift + BITS);
  } else if (slot.key === entry.key) copy[index] = entry;
  // Equal 32-bit hashes can only share a bucket; different ones part at some deeper level.
  else if (slot.hash === entry.hash) copy[index] = { bucket: [slot, entry] };
  else copy[index] = setIn(setInEach([slot], shift + BITS), entry, shift + BITS);
  return copy;
}

function setInEach<V>(entries: readonly Entry<V>[], shift: number): Branch<V> {
  if (entries.length > 1) {
    // A bucket moving down keeps its entries together.
    const index = (entries[0].hash >>> shift) & MASK;
    const branch = new Array<Slot<V>>(WIDTH).fill(undefined);
    branch[index] = { bucket: entries };
    return branch;
  }
  return setIn(new Array<Slot<V>>(WIDTH).fill(undefined), entries[0], shift);
}

function* entriesOf<V>(node: Branch<V>): Generator<Entry<V>> {
  for (const slot of node) {
    if (slot === undefined) continue;
    if (isBranch(slot)) yield* entriesOf(slot);
    else if (isBucket(slot)) yield* slot.bucket;
    else yield slot;
  }
}
