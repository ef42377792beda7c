/** What the package's tests share: one redis-server per file, contexts that are closed after each test. */

import type { TaskRecord } from '@edge-mcp/core/tasks';
import {
  type RedisCluster,
  type RedisClusterOptions,
  type RedisServer,
  startRedis,
  startRedisCluster,
} from '@edge-mcp/test-kit/node';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { createContext, type RedisContext } from '../src/backend.ts';
import type { RedisBackendOptions } from '../src/options.ts';

export interface Errors {
  list: Array<{ error: Error; where: string }>;
  onError(error: Error, where: string): void;
}

export function errors(): Errors {
  const list: Errors['list'] = [];
  return { list, onError: (error, where) => list.push({ error, where }) };
}

/** Starts one sharded Redis Cluster for the file (stopped after it) and returns its getter. */
export function useRedisCluster(options: RedisClusterOptions = {}): () => RedisCluster {
  let cluster: RedisCluster | undefined;
  beforeAll(async () => {
    cluster = await startRedisCluster(options);
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
  });
  return () => {
    if (!cluster) throw new Error('Redis Cluster not started');
    return cluster;
  };
}

/** Starts one redis-server for the file (stopped after it) and returns its getter. */
export function useRedis(persist = false): () => RedisServer {
  let server: RedisServer | undefined;
  beforeAll(async () => {
    server = await startRedis({ persist });
  });
  afterAll(async () => {
    await server?.stop();
  });
  return () => {
    if (!server) throw new Error('redis-server not started');
    return server;
  };
}

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
});

/** Closes `item` after the current test. */
export function closeAfter<T extends { close(): Promise<void> }>(item: T): T {
  open.push(item);
  return item;
}

let namespaces = 0;
/** A fresh namespace per test, so tests of one file never see each other's keys. */
export function namespace(): string {
  return `t${process.pid}x${++namespaces}`;
}

/** A context (connection, instance, bus) with test timeouts, closed after the test. */
export async function context(
  url: string | readonly string[],
  options: Partial<RedisBackendOptions> = {},
): Promise<RedisContext> {
  const made = await createContext({
    ...(typeof url === 'string' ? { url } : { nodes: url }),
    connectTimeoutMs: 1000,
    socketTimeoutMs: 1000,
    heartbeatMs: 500,
    ...options,
  });
  closeAfter({
    close: async () => {
      await made.instance.stop();
      await made.bus.close();
      await made.connection.close();
    },
  });
  return made;
}

export { until } from '@edge-mcp/test-kit';

let taskIds = 0;
/** A running task of `runner` (binding `p:alice` unless `fields` say otherwise), id unique in the run. */
export function taskRecord(runner: string, fields: Partial<TaskRecord> = {}): TaskRecord {
  const now = Date.now();
  return {
    id: `task${process.pid}x${++taskIds}`,
    binding: 'p:alice',
    status: 'working',
    createdAt: now,
    updatedAt: now,
    ttlMs: 60_000,
    pollIntervalMs: 1000,
    expiresAt: now + 60_000,
    tool: 'compute',
    issuedKeys: [],
    runner,
    ...fields,
  };
}
