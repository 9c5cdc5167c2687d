// What an extension that registered one tool (or one command) holds for it: two fields, not a Map
// (an empty Map's table alone is ~150 bytes). LoadedExtension makes a Map at the second entry.

/** A read-only map of exactly one entry (keys compared like a Map's: SameValueZero). */
export class OneEntryMap<K, V> implements ReadonlyMap<K, V> {
  constructor(
    readonly key: K,
    readonly value: V,
  ) {}

  get size(): number {
    return 1;
  }

  has(key: K): boolean {
    const own = this.key;
    // SameValueZero: NaN is NaN.
    return key === own || (key !== key && own !== own);
  }

  get(key: K): V | undefined {
    return this.has(key) ? this.value : undefined;
  }

  forEach(callback: (value: V, key: K, map: ReadonlyMap<K, V>) => void, thisArg?: unknown): void {
    callback.call(thisArg, this.value, this.key, this);
  }

  // Iterators of a Map of the entry: the same objects as a Map's (rarely asked for: snapshots, restarts).
  entries(): MapIterator<[K, V]> {
    return this.asMap().entries();
  }

  keys(): MapIterator<K> {
    return this.asMap().keys();
  }

  values(): MapIterator<V> {
    return this.asMap().values();
  }

  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.asMap().entries();
  }

  private asMap(): Map<K, V> {
    return new Map([[this.key, this.value]]);
  }
}
