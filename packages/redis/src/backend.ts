/**
 * `redisBackend()`: one instance's connection to the cluster: the connections, the
 * instance (tag, liveness, heartbeat), the bus, the session manager and the event store, all on
 * one `RedisContext`; `handlerOptions()` gives them to `createMcpHandler`.
 */
import type { AbortReasonType, McpHandlerOptions, TaskOptions } from '@edge-mcp/core';
import { type RateLimitStore, SessionManager } from '@edge-mcp/core/sessions';
import { RedisBus } from './bus.ts';
import { connectRedis } from './connection.ts';
import type { RedisContext } from './context.ts';
import { RedisEventStore } from './event-store.ts';
import { Instance, newInstanceTag } from './instance.ts';
import { RedisKeys, ShardedKeys } from './keys.ts';
import { type RedisBackendOptions, resolveOptions } from './options.ts';

export type { RedisContext } from './context.ts';

import { RedisRateLimitStore } from './rate-limit-store.ts';
import { RedisSessionCluster } from './session-cluster.ts';
import { RedisSessionStore } from './session-store.ts';
import { RedisTaskStore } from './task-store.ts';

export interface RedisBackendStats {
  /** Awaited Redis operations (a command, a script or a pipeline each count 1). */
  roundTrips: number;
  /** Of those, the heartbeats (one round trip each, whatever the traffic). */
  heartbeats: number;
  commands: number;
  published: number;
  received: number;
  reconnects: number;
  /** Session replicas this instance holds. */
  replicas: number;
}

/** What `handlerOptions()` gives `createMcpHandler`. */
export type RedisHandlerOptions = Required<
  Pick<McpHandlerOptions, 'sessions' | 'eventStore' | 'cluster' | 'tasks' | 'onClose'>
>;

export interface RedisBackend {
  /** This instance's tag (it starts the ids of the streams and requests it holds). */
  readonly instance: string;
  /** Legacy sessions in Redis (the core's `SessionManager`, with `cluster`, `peek`, `shutdown`). */
  readonly sessions: SessionManager;
  /** Replayable events in Redis Streams (the core's `EventStore`); undefined with `events: false`. */
  readonly eventStore: RedisEventStore | undefined;
  /** The cluster bus: the handler's `cluster` option (the core's `ClusterBus`). */
  readonly bus: RedisBus;
  /** Tasks in Redis (the core's `TaskStore`, shared by every instance). */
  readonly taskStore: RedisTaskStore;
  /**
   * Rate-limit buckets in Redis, shared by every instance (the core's `RateLimitStore`): give it
   * as `rateLimit.store` next to the limits.
   */
  readonly rateLimits: RateLimitStore;
  /** Both connections are ready. */
  readonly available: boolean;
  /**
   * `sessions`, `eventStore`, `cluster` and `tasks` (with `taskStore`, and `tasks`'s other
   * settings when given; `false`: no tasks), to spread into `createMcpHandler`'s options, and
   * `onClose`, so that `handler.close()` (what `serve()` calls on SIGTERM) closes this cluster
   * once the handler has ended everything.
   */
  handlerOptions(tasks?: Omit<TaskOptions, 'store'> | false): RedisHandlerOptions;
  stats(): RedisBackendStats;
  /** Sessions in the whole cluster, and instances alive. */
  clusterStats(): Promise<{ sessions: number; instances: number }>;
  /**
   * Operator: ends every session of the cluster (on every instance: their requests and streams
   * end with `reason`; `onSessionClose` fires once per session, here). Resolves with the count.
   */
  closeAll(reason?: AbortReasonType): Promise<number>;
  /**
   * A secret shared by every instance, kept in Redis (`SET NX`), for `requestState.secret` when
   * the deployment has no secret manager. It is stored in plain text: whoever can read Redis can
   * sign states, and a `FLUSHALL` makes a new one (states signed before are then refused). In
   * production, give every instance the same secret of your own instead.
   */
  sharedSecret(): Promise<string>;
  /**
   * After `handler.close()` (which ends this instance's requests and streams, and keeps the
   * sessions for the others): stops the heartbeat, deletes the liveness key, quits both
   * connections.
   */
  close(): Promise<void>;
}

/**
 * Connects to Redis and joins the cluster. Rejects with `RedisUnavailableError` (naming the URL,
 * its password masked, and the cause) when Redis cannot be reached within `connectTimeoutMs`.
 */
export async function redisBackend(options: RedisBackendOptions): Promise<RedisBackend> {
  return backendOf(await createContext(options));
}

/** The cluster of a context made by `createContext` (tests reach the context's parts). */
export function backendOf(context: RedisContext): RedisBackend {
  return makeBackend(context);
}

/** Connects and starts the instance and the bus. */
export async function createContext(options: RedisBackendOptions): Promise<RedisContext> {
  const resolved = resolveOptions(options);
  const keys = resolved.nodes
    ? new ShardedKeys(resolved.namespace, resolved.partitions)
    : new RedisKeys(resolved.namespace);
  const tag = newInstanceTag();
  const connection = await connectRedis({
    ...(resolved.nodes ? { nodes: resolved.nodes } : { url: resolved.url }),
    connectTimeoutMs: resolved.connectTimeoutMs,
    socketTimeoutMs: resolved.socketTimeoutMs,
    name: `${resolved.namespace}:${tag}`,
    onError: resolved.onError,
    retryAfterSeconds: resolved.retryAfterSeconds,
    waitForReplicas: resolved.waitForReplicas,
    replicaTimeoutMs: resolved.replicaTimeoutMs,
  });
  const instance = new Instance(
    connection,
    keys,
    { heartbeatMs: resolved.heartbeatMs, onError: resolved.onError },
    tag,
  );
  const bus = new RedisBus(connection, keys, instance, resolved.onError);
  // Sharded, instances are counted in a registry (a cluster cannot be scanned from one node).
  if (keys instanceof ShardedKeys)
    instance.onBeat(() => ({
      ops: [['ZADD', keys.registry, Date.now() + instance.livenessTtlMs, instance.tag]],
    }));
  try {
    await bus.start();
    await instance.start();
  } catch (error) {
    await connection.close();
    throw error;
  }
  return { options: resolved, keys, connection, instance, bus };
}

function makeBackend(context: RedisContext): RedisBackend {
  const { connection, instance, bus, keys, options } = context;
  // The core's session manager holds the live copies; the store keeps the records in Redis and
  // the cluster part reaches what other instances hold.
  const cluster: RedisSessionCluster = new RedisSessionCluster(context, {
    peek: (id) => sessions.peek(id),
    reload: (id) => {
      const reloaded = sessions.get(id);
      if (reloaded instanceof Promise)
        reloaded.catch((error: Error) => options.onError(error, 'session-reload'));
    },
  });
  const stopCluster = cluster.start();
  const store = new RedisSessionStore(context, () => cluster.prune());
  const sessions: SessionManager = new SessionManager({
    store,
    cluster,
    idleTimeoutMs: options.idleTimeoutMs,
    maxReplicas: options.maxReplicas,
  });
  const eventStore =
    options.events === false ? undefined : new RedisEventStore(connection, keys, options.events);
  const taskStore = new RedisTaskStore(context);
  const rateLimits = new RedisRateLimitStore(connection, keys);
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= (async () => {
      // Without handler.close() first, this instance's replicas end here (reason shutdown).
      await sessions.shutdown();
      stopCluster();
      await taskStore.close();
      await bus.close();
      await connection.close();
    })();
    return closed;
  };
  return {
    instance: instance.tag,
    sessions,
    eventStore,
    bus,
    taskStore,
    rateLimits,
    get available() {
      return connection.available;
    },
    handlerOptions(tasks = {}) {
      return {
        sessions,
        eventStore: eventStore ?? false,
        cluster: bus,
        tasks: tasks === false ? false : { ...tasks, store: taskStore },
        onClose: close,
      };
    },
    stats() {
      const { roundTrips, commands, reconnects } = connection.stats();
      const { published, received } = bus.stats();
      return {
        roundTrips,
        heartbeats: instance.beats,
        commands,
        published,
        received,
        reconnects,
        replicas: sessions.size,
      };
    },
    async clusterStats() {
      const counts = await connection.pipeline(keys.indexes().map((index) => ['ZCARD', index]));
      const count = counts.reduce<number>((sum, n) => sum + (typeof n === 'number' ? n : 0), 0);
      if (keys instanceof ShardedKeys) {
        await connection.command(['ZREMRANGEBYSCORE', keys.registry, '-inf', Date.now()]);
        return {
          sessions: count,
          instances: Number(await connection.command(['ZCARD', keys.registry])),
        };
      }
      let instances = 0;
      let cursor = '0';
      do {
        const [next, found] = (await connection.command([
          'SCAN',
          cursor,
          'MATCH',
          keys.instance('*'),
          'COUNT',
          1000,
        ])) as [string, string[]];
        cursor = next;
        instances += found.length;
      } while (cursor !== '0');
      return { sessions: count, instances };
    },
    // Every session of the cluster, those held here included (their end is reported here).
    closeAll: (reason = 'shutdown') => store.clear(reason),
    async sharedSecret() {
      const candidate = Array.from(crypto.getRandomValues(new Uint8Array(32)), (byte) =>
        byte.toString(16).padStart(2, '0'),
      ).join('');
      // SET … NX GET: the stored secret, or nil when this call stored the candidate.
      const stored = await connection.command(['SET', keys.secret, candidate, 'NX', 'GET']);
      return typeof stored === 'string' ? stored : candidate;
    },
    close,
  };
}
