/**
 * @module
 * The example apps on Redis (`@edge-mcp/example-server/example/redis`, an entry of its own so that an app that
 * never uses Redis, the Worker above all, never loads node-redis): with `REDIS_URL` set, the
 * legacy sessions, their events, the cluster bus and the tasks of every instance of the app live
 * in that Redis, so several instances serve any session.
 */
import type { McpHandlerOptions } from '@edge-mcp/core';
import { type RedisBackend, type RedisBackendOptions, redisBackend } from '@edge-mcp/redis';
import type { EnvReader } from './options.ts';

/**
 * Every environment variable `exampleCluster` reads (Deno's `--allow-env` must list them, and
 * `REDIS_DEBUG_MAINTENANCE,REDIS_EMIT_DIAGNOSTICS`, which node-redis reads while connecting).
 */
export const REDIS_ENV = [
  'REDIS_URL',
  'REDIS_CLUSTER_NODES',
  'REDIS_PARTITIONS',
  'REDIS_NAMESPACE',
  'REDIS_IDLE_MS',
  'REDIS_MAX_SESSIONS',
  'REDIS_HEARTBEAT_MS',
  'REDIS_CONNECT_TIMEOUT_MS',
  'REDIS_SOCKET_TIMEOUT_MS',
  'REDIS_LINK_TIMEOUT_MS',
  'MCP_REQUEST_STATE_SECRET',
] as const;

/** The handler options an app spreads into `createMcpHandler` to run on Redis. */
export type ExampleClusterOptions = Required<
  Pick<McpHandlerOptions, 'sessions' | 'eventStore' | 'cluster' | 'tasks' | 'requestState'>
>;

export interface ExampleCluster {
  /** The instance's connection to the cluster (its tag, `closeAll()`, stats). */
  readonly cluster: RedisBackend;
  /** Sessions, event store, bus, task store and the shared `requestState` secret. */
  readonly options: ExampleClusterOptions;
  /** `REDIS_URL` with its password masked, for the start line. */
  readonly url: string;
  /** After `handler.close()`: this instance leaves the cluster (the sessions stay in Redis). */
  close(): Promise<void>;
}

function number(env: EnvReader, name: string): number | undefined {
  const value = env(name);
  if (value === undefined || value.trim() === '') return undefined;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0)
    throw new RangeError(`${name} must be a positive number, got "${value}"`);
  return parsed;
}

/** `url` with its password (if any) replaced by `***`. */
export function maskRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return url;
  }
}

/**
 * Joins the Redis named by `REDIS_URL` (one primary) or the sharded Redis Cluster named by
 * `REDIS_CLUSTER_NODES` (comma-separated `redis://host:port` seeds; `REDIS_PARTITIONS`, the same
 * on every instance), or resolves `undefined` without either (the app then keeps everything in
 * memory, as always). Also read: `REDIS_NAMESPACE` (key prefix, default
 * `edge-mcp`), `REDIS_IDLE_MS`, `REDIS_MAX_SESSIONS` (cluster-wide), `REDIS_HEARTBEAT_MS`,
 * `REDIS_CONNECT_TIMEOUT_MS`, `REDIS_SOCKET_TIMEOUT_MS`, `REDIS_LINK_TIMEOUT_MS`, and
 * `MCP_REQUEST_STATE_SECRET` (every instance must sign 2026-07-28 input requests alike; without
 * it, one secret kept in Redis). Rejects with `RedisUnavailableError` (the URL and the cause)
 * when Redis cannot be reached; `log` gets connection losses and other Redis reports.
 */
export async function exampleCluster(
  env: EnvReader,
  log: (line: string) => void = () => {},
  overrides: Partial<RedisBackendOptions> = {},
): Promise<ExampleCluster | undefined> {
  const url = env('REDIS_URL')?.trim() ?? '';
  const nodes = (env('REDIS_CLUSTER_NODES') ?? '')
    .split(',')
    .map((node) => node.trim())
    .filter((node) => node !== '');
  if (url === '' && nodes.length === 0) return undefined;
  if (url !== '' && nodes.length > 0)
    throw new TypeError('Set REDIS_URL (one primary) or REDIS_CLUSTER_NODES (a cluster), not both');
  const settings: RedisBackendOptions = {
    ...(nodes.length > 0 ? { nodes } : { url }),
    onError: (error, where) => log(`redis (${where}): ${error.message}`),
  };
  const namespace = env('REDIS_NAMESPACE');
  if (namespace) settings.namespace = namespace;
  const numeric = [
    ['idleTimeoutMs', 'REDIS_IDLE_MS'],
    ['maxSessions', 'REDIS_MAX_SESSIONS'],
    ['heartbeatMs', 'REDIS_HEARTBEAT_MS'],
    ['connectTimeoutMs', 'REDIS_CONNECT_TIMEOUT_MS'],
    ['socketTimeoutMs', 'REDIS_SOCKET_TIMEOUT_MS'],
    ['linkTimeoutMs', 'REDIS_LINK_TIMEOUT_MS'],
    ['partitions', 'REDIS_PARTITIONS'],
  ] as const;
  for (const [option, name] of numeric) {
    const value = number(env, name);
    if (value !== undefined) settings[option] = value;
  }
  const cluster = await redisBackend({ ...settings, ...overrides });
  try {
    const configured = env('MCP_REQUEST_STATE_SECRET');
    if (!configured)
      log(
        'edge-mcp example: MCP_REQUEST_STATE_SECRET is not set; the requestState secret is kept in Redis, where anyone who can read Redis can sign states (set it on every instance)',
      );
    const secret = configured || (await cluster.sharedSecret());
    return {
      cluster,
      options: { ...cluster.handlerOptions(), requestState: { secret } },
      url:
        nodes.length > 0
          ? `the cluster of ${nodes.map(maskRedisUrl).join(', ')}`
          : maskRedisUrl(url),
      close: () => cluster.close(),
    };
  } catch (error) {
    await cluster.close();
    throw error;
  }
}
