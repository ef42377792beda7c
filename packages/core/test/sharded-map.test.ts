/**
 * The session table's id map (sessions/sharded-map.ts): a Map split by a hash of the key, whose
 * size counts each key once whatever the shard, through overwrites and deletes of missing keys.
 */
import { expect, test } from 'vitest';
import { ShardedMap } from '../src/sessions/sharded-map.ts';

test('get, has, set and delete behave as one Map, and size counts each key once', () => {
  const map = new ShardedMap<number>();
  const keys: string[] = Array.from({ length: 5_000 }, () => crypto.randomUUID());
  keys.push('', 'a', 'ab');
  keys.forEach((key, i) => {
    map.set(key, i);
  });
  expect(map.size).toBe(keys.length);
  map.set(keys[0] as string, -1); // an overwrite is no new key
  expect(map.size).toBe(keys.length);
  expect(map.get(keys[0] as string)).toBe(-1);
  expect(map.get(keys[1] as string)).toBe(1);
  expect(map.has('')).toBe(true);
  expect(map.delete('not there')).toBe(false);
  expect(map.size).toBe(keys.length);
  for (const key of keys.slice(0, 4_000)) expect(map.delete(key)).toBe(true);
  expect(map.size).toBe(keys.length - 4_000);
  expect(map.has(keys[0] as string)).toBe(false);
  expect(map.get(keys[4_000] as string)).toBe(4_000);
});
