import { createServer, type Server } from 'node:net';
import { freePort, startRedis } from '@edge-mcp/test-kit/node';
import { describe, expect, test } from 'vitest';
import {
  checkDenoPermissions,
  clientConfig,
  evictionWarning,
  maskUrl,
  reconnectDelay,
  redisVersion,
  versionAtLeast,
} from '../src/client-config.ts';
import {
  connectRedis,
  type RedisConnection,
  RedisReplyError,
  RedisUnavailableError,
} from '../src/connection.ts';
import { defineScript } from '../src/scripts.ts';
import { closeAfter, errors, until, useRedis } from './helpers.ts';

const redis = useRedis(true);
const ECHO = defineScript(
  'test-echo',
  1,
  "return { KEYS[1], ARGV[1], redis.call('TYPE', KEYS[1]).ok }",
);

async function connect(onError?: (error: Error, where: string) => void): Promise<RedisConnection> {
  return closeAfter(
    await connectRedis({
      url: redis().url,
      connectTimeoutMs: 1000,
      socketTimeoutMs: 1000,
      ...(onError ? { onError } : {}),
    }),
  );
}

describe('client settings', () => {
  test('per-command timeout off, offline queue off, pings inside the socket timeout, RESP2 arrays', () => {
    let established = false;
    const config = clientConfig(
      'redis://127.0.0.1:1',
      { connectTimeoutMs: 700, socketTimeoutMs: 5000 },
      () => established,
      {},
    );
    expect(config.commandOptions.timeout).toBe(0);
    expect(config.disableOfflineQueue).toBe(true);
    expect(config.socket.socketTimeout).toBe(5000);
    expect(config.pingInterval).toBe(1000);
    expect(config.pingInterval).toBeLessThan(config.socket.socketTimeout);
    expect(config.socket.connectTimeout).toBe(700);
    // No retry before the first connection: a clear error at start; backoff after it.
    expect(config.socket.reconnectStrategy(0)).toBe(false);
    established = true;
    expect([0, 1, 2, 5, 10].map((n) => config.socket.reconnectStrategy(n))).toEqual([
      50, 100, 200, 1600, 2000,
    ]);
    expect(reconnectDelay(40)).toBe(2000);
  });

  test('Deno without env access to the two node-redis variables: a clear error naming them', () => {
    const deno = (granted: string[]) => ({
      permissions: {
        querySync: ({ variable }: { variable: string }) => ({
          state: granted.includes(variable) ? 'granted' : 'prompt',
        }),
      },
    });
    expect(() => checkDenoPermissions(deno([]))).toThrow(
      /--allow-env=REDIS_DEBUG_MAINTENANCE,REDIS_EMIT_DIAGNOSTICS/,
    );
    expect(() => checkDenoPermissions(deno(['REDIS_DEBUG_MAINTENANCE']))).toThrow(
      /needs env access to REDIS_EMIT_DIAGNOSTICS \(/,
    );
    expect(() =>
      checkDenoPermissions(deno(['REDIS_DEBUG_MAINTENANCE', 'REDIS_EMIT_DIAGNOSTICS'])),
    ).not.toThrow();
    expect(() => checkDenoPermissions(undefined)).not.toThrow();
  });

  test('version check, eviction warning, masked URLs', () => {
    expect(redisVersion('# Server\r\nredis_version:7.0.15\r\nredis_mode:standalone\r\n')).toBe(
      '7.0.15',
    );
    expect(['6.2.0', '6.10.1', '7.0.15', '8.0'].map((v) => versionAtLeast(v))).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(['6.0.16', '5.0.7', 'x'].map((v) => versionAtLeast(v))).toEqual([false, false, false]);
    expect(evictionWarning('noeviction')).toBeUndefined();
    expect(evictionWarning('allkeys-lru')?.message).toMatch(/allkeys-lru.*noeviction/);
    expect(maskUrl('redis://user:secret@host:6379/2')).toBe('redis://user:***@host:6379/2');
    expect(maskUrl('redis://:secret@host:6379')).toBe('redis://:***@host:6379');
    expect(maskUrl('redis://127.0.0.1:6390')).toBe('redis://127.0.0.1:6390');
  });
});

describe('connecting', () => {
  test('Redis unreachable at start: RedisUnavailableError naming the URL (password masked) and the cause', async () => {
    const port = await freePort();
    const started = Date.now();
    const error = await connectRedis({
      url: `redis://:hunter2@127.0.0.1:${port}`,
      connectTimeoutMs: 1000,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RedisUnavailableError);
    expect((error as Error).message).toBe(
      `Could not connect to Redis at redis://:***@127.0.0.1:${port} (ECONNREFUSED)`,
    );
    expect(Date.now() - started).toBeLessThan(2000);
  });

  test('a server that accepts but never answers: rejected after connectTimeoutMs', async () => {
    const silent: Server = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    try {
      const started = Date.now();
      const error = await connectRedis({
        url: `redis://127.0.0.1:${port}`,
        connectTimeoutMs: 500,
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RedisUnavailableError);
      expect((error as Error).message).toMatch(
        `Could not connect to Redis at redis://127.0.0.1:${port}`,
      );
      expect(Date.now() - started).toBeLessThan(1500);
    } finally {
      silent.close();
    }
  });

  test('a Redis that may evict keys is reported through onError', async () => {
    const evicting = await startRedis({ args: ['--maxmemory-policy', 'allkeys-lru'] });
    try {
      const seen = errors();
      const connection = await connectRedis({ url: evicting.url, onError: seen.onError });
      await connection.close();
      expect(seen.list.map(({ where }) => where)).toEqual(['config']);
      expect(seen.list[0]?.error.message).toMatch(/maxmemory-policy is allkeys-lru/);
    } finally {
      await evicting.stop();
    }
  });
});

describe('commands, scripts and pipelines', () => {
  test('replies are plain RESP2 values; each operation is one round trip', async () => {
    const connection = await connect();
    const before = connection.stats();
    expect(await connection.command(['HSET', 'c:h', 'a', 1, 'b', 'two'])).toBe(2);
    expect(await connection.command(['HGETALL', 'c:h'])).toEqual(['a', '1', 'b', 'two']);
    expect(await connection.command(['GET', 'c:none'])).toBeNull();
    expect(await connection.script(ECHO, ['c:h'], ['x'])).toEqual(['c:h', 'x', 'hash']);
    const replies = await connection.pipeline([
      ['SET', 'c:s', 'v'],
      ['HGET', 'c:s', 'f'],
      { script: ECHO, keys: ['c:s'], args: ['y'] },
    ]);
    expect(replies[0]).toBe('OK');
    expect(replies[1]).toBeInstanceOf(RedisReplyError);
    expect((replies[1] as Error).message).toMatch(/^WRONGTYPE/);
    expect(replies[2]).toEqual(['c:s', 'y', 'string']);
    await expect(connection.command(['HGET', 'c:s', 'f'])).rejects.toBeInstanceOf(RedisReplyError);
    const after = connection.stats();
    expect(after.roundTrips - before.roundTrips).toBe(6);
    expect(after.commands - before.commands).toBe(8);
  });

  test('EVALSHA falls back to EVAL after SCRIPT FLUSH (alone and in a pipeline)', async () => {
    const connection = await connect();
    expect(await connection.command(['SCRIPT', 'EXISTS', ECHO.sha])).toEqual([1]);
    await connection.command(['SCRIPT', 'FLUSH']);
    const before = connection.stats().roundTrips;
    expect(await connection.script(ECHO, ['k'], ['1'])).toEqual(['k', '1', 'none']);
    expect(connection.stats().roundTrips - before).toBe(2);
    await connection.command(['SCRIPT', 'FLUSH']);
    const replies = await connection.pipeline([
      { script: ECHO, keys: ['k'], args: ['2'] },
      ['PING'],
    ]);
    expect(replies).toEqual([['k', '2', 'none'], 'PONG']);
    await expect(connection.script(ECHO, [], [])).rejects.toThrow(/takes 1 keys, got 0/);
  });
});

describe('losing Redis', () => {
  test('restarted: commands fail at once while it is away, reconnection is automatic, scripts reload, data kept', async () => {
    const seen = errors();
    const connection = await connect(seen.onError);
    const events: string[] = [];
    connection.onUnavailable(() => events.push('down'));
    connection.onAvailable(() => events.push('up'));
    await connection.command(['SET', 'kept', 'yes']);
    await connection.command(['SCRIPT', 'FLUSH']);
    // SIGTERM, then a start on the same port and directory (the AOF keeps the data).
    await redis().restart();
    await until(() => !connection.available, 'unavailable');
    const started = Date.now();
    await expect(connection.command(['GET', 'kept'])).rejects.toBeInstanceOf(RedisUnavailableError);
    expect(Date.now() - started).toBeLessThan(100);
    await until(() => connection.available, 'available again');
    expect(events).toEqual(['down', 'up']);
    expect(connection.stats().reconnects).toBe(1);
    expect(await connection.command(['GET', 'kept'])).toBe('yes');
    await until(
      async () => ((await connection.command(['SCRIPT', 'EXISTS', ECHO.sha])) as number[])[0] === 1,
      'scripts reloaded',
    );
    expect(seen.list.length).toBeGreaterThanOrEqual(1);
  });

  test('hung (SIGSTOP): a pending command fails within socketTimeoutMs, then it recovers', async () => {
    const connection = await connect();
    redis().pause();
    try {
      const started = Date.now();
      const error = await connection.command(['PING']).catch((e: unknown) => e);
      const elapsed = Date.now() - started;
      expect(error).toBeInstanceOf(RedisUnavailableError);
      // The socket timeout counts from the last byte received (a ping up to 200 ms earlier).
      expect(elapsed).toBeGreaterThanOrEqual(700);
      expect(elapsed).toBeLessThan(2500);
    } finally {
      redis().resume();
    }
    await until(() => connection.available, 'available again');
    expect(await connection.command(['PING'])).toBe('PONG');
  });
});
