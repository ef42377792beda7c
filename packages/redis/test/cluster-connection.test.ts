/**
 * The connection on a real sharded Redis Cluster (3 primaries, one replica each): commands and
 * scripts reach the primary of their key's slot, sharded pub/sub reaches listeners of every
 * shard, and a primary's failover or a slot's migration is followed without an error.
 */
import { type RedisCluster, startRedisCluster } from '@edge-mcp/test-kit/node';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { connectRedis, type RedisConnection } from '../src/connection.ts';
import { firstKey } from '../src/links.ts';
import { defineScript } from '../src/scripts.ts';
import { closeAfter, until } from './helpers.ts';

const INCR_BOTH = defineScript(
  'test-cluster-incr-both',
  2,
  "return { redis.call('INCR', KEYS[1]), redis.call('INCR', KEYS[2]) }",
);

let cluster: RedisCluster;
beforeAll(async () => {
  cluster = await startRedisCluster();
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
});

async function connect(): Promise<RedisConnection> {
  return closeAfter(
    await connectRedis({
      nodes: cluster.urls.slice(0, 1),
      connectTimeoutMs: 2000,
      socketTimeoutMs: 2000,
    }),
  );
}

describe('routing', () => {
  test('the first key routes a command; keyless commands have none', () => {
    expect(firstKey(['GET', 'a'])).toBe('a');
    expect(firstKey(['EVALSHA', 'sha', '2', 'k1', 'k2', 'arg'])).toBe('k1');
    expect(firstKey(['EVALSHA', 'sha', '0', 'arg'])).toBeUndefined();
    expect(firstKey(['INFO', 'server'])).toBeUndefined();
    expect(firstKey(['SPUBLISH', 'ch', 'm'])).toBe('ch');
  });

  test('keys of every shard are reached from one seed; a script runs on its slot', async () => {
    const connection = await connect();
    expect(connection.sharded).toBe(true);
    const keys = Array.from({ length: 30 }, (_, i) => `k${i}`);
    await connection.pipeline(keys.map((key, i) => ['SET', key, i]));
    const owners = new Set<number>();
    for (const key of keys.slice(0, 10)) owners.add((await cluster.primaryOf(key)).port);
    expect(owners.size).toBeGreaterThan(1);
    expect(await connection.pipeline(keys.map((key) => ['GET', key]))).toEqual(
      keys.map((_, i) => String(i)),
    );
    expect(await connection.script(INCR_BOTH, ['{s1}:a', '{s1}:b'])).toEqual([1, 1]);
    // Two slots in one script: Redis refuses it, and the refusal is a reply error, not a 503.
    await expect(connection.script(INCR_BOTH, ['{s1}:a', '{s2}:b'])).rejects.toThrow(/CROSSSLOT/);
  });

  test('sharded pub/sub reaches the listeners of a channel on any shard', async () => {
    const listener = await connect();
    const sender = await connect();
    const heard: string[] = [];
    const channels = ['{a}:ch', '{b}:ch', '{c}:ch', '{d}:ch'];
    for (const channel of channels)
      await listener.subscribe(channel, (message) => heard.push(message));
    for (const channel of channels)
      expect(await sender.command(['SPUBLISH', channel, channel])).toBe(1);
    await until(() => heard.length === channels.length, 'every sharded message');
    expect(heard.sort()).toEqual([...channels].sort());
  });
});

describe('topology changes', () => {
  test('a failover and a slot migration are followed', async () => {
    const connection = await connect();
    await connection.command(['SET', 'moving', 'v1']);
    const owner = await cluster.primaryOf('moving');
    // Its replica takes over: the next command finds the new primary (MOVED, then a refresh).
    const lines = (
      await cluster.cli(
        owner.port,
        'CLUSTER',
        'REPLICAS',
        (await cluster.cli(owner.port, 'CLUSTER', 'MYID')).trim(),
      )
    ).trim();
    const replicaPort = Number(/:(\d+)@/.exec(lines)?.[1]);
    const replica = cluster.nodes.find((node) => node.port === replicaPort);
    if (!replica) throw new Error(`no replica of ${owner.port}: ${lines}`);
    await cluster.failover(replica);
    expect(await connection.command(['GET', 'moving'])).toBe('v1');
    await connection.command(['SET', 'moving', 'v2']);
    // Its slot moves to another primary: the key moves with it.
    const other = (await cluster.primaries()).find((node) => node.port !== replica.port);
    if (!other) throw new Error('no other primary');
    await cluster.reshard(replica, other, 16384 / 3);
    expect(await connection.command(['GET', 'moving'])).toBe('v2');
  }, 60_000);
});
