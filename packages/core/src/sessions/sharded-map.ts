/**
 * A `Map` split into 64 by a hash of the key, for tables that hold up to millions of entries. V8
 * rehashes a whole `Map` when it grows, and when a delete leaves it a quarter full: one delete of
 * a table shrinking from 250,000 entries took 21 ms on Node 20, and a mass expiry of a million
 * sessions shrinks the table again and again. A shard rehashes a sixty-fourth of that.
 *
 * @module
 */
const SHARDS = 64;

/** The shard of `key`: its last four characters (session ids end in random characters). */
function shardOf(key: string): number {
  let hash = 0;
  for (let i = Math.max(0, key.length - 4); i < key.length; i++)
    hash = (hash * 31 + key.charCodeAt(i)) | 0;
  return hash & (SHARDS - 1);
}

export class ShardedMap<V> {
  readonly #shards: Map<string, V>[] = Array.from({ length: SHARDS }, () => new Map());
  #size = 0;

  get size(): number {
    return this.#size;
  }

  get(key: string): V | undefined {
    return this.#shards[shardOf(key)]?.get(key);
  }

  has(key: string): boolean {
    return this.#shards[shardOf(key)]?.has(key) ?? false;
  }

  set(key: string, value: V): void {
    const shard = this.#shards[shardOf(key)] as Map<string, V>;
    const before = shard.size;
    shard.set(key, value);
    this.#size += shard.size - before;
  }

  delete(key: string): boolean {
    const deleted = this.#shards[shardOf(key)]?.delete(key) ?? false;
    if (deleted) this.#size--;
    return deleted;
  }
}
