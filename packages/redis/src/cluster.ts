/**
 * `redisCluster()`: one instance's connection to the cluster (design §4.1). This is the package
 * skeleton: the connections, the instance (tag, liveness, heartbeat) and the bus. The session
 * manager, event store and task store (`sessions`, `eventStore`, `taskStore`,
 * `handlerOptions()`, `closeAll()`, `clusterStats()`) are built on the same `RedisContext`.
 */
import { RedisBus } from './bus.ts';
import { connectRedis, type RedisConnection } from './connection.ts';
import { Instance, newInstanceTag } from './instance.ts';
import { RedisKeys } from './keys.ts';
import { type RedisClusterOptions, type ResolvedRedisOptions, resolveOptions } from './options.ts';

/** What every part of the package is built on (one per `redisCluster()`). */
export interface RedisContext {
  readonly options: ResolvedRedisOptions;
  readonly keys: RedisKeys;
  readonly connection: RedisConnection;
  readonly instance: Instance;
  readonly bus: RedisBus;
}

export interface RedisClusterStats {
  /** Awaited Redis operations (a command, a script or a pipeline each count 1). */
  roundTrips: number;
  commands: number;
  published: number;
  received: number;
  reconnects: number;
}

export interface RedisCluster {
  /** This instance's tag (it starts the ids of the streams and requests it holds). */
  readonly instance: string;
  /** The cluster bus: the handler's `cluster` option (the core's `ClusterBus`). */
  readonly bus: RedisBus;
  /** Both connections are ready. */
  readonly available: boolean;
  stats(): RedisClusterStats;
  /**
   * A secret shared by every instance, kept in Redis (`SET NX`), for `requestState.secret` when
   * the deployment has no secret manager.
   */
  sharedSecret(): Promise<string>;
  /** Stops the heartbeat, deletes this instance's liveness key, quits both connections. */
  close(): Promise<void>;
}

/**
 * Connects to Redis and joins the cluster. Rejects with `RedisUnavailableError` (naming the URL,
 * its password masked, and the cause) when Redis cannot be reached within `connectTimeoutMs`.
 */
export async function redisCluster(options: RedisClusterOptions): Promise<RedisCluster> {
  return clusterOf(await createContext(options));
}

/** Connects and starts the instance and the bus. */
export async function createContext(options: RedisClusterOptions): Promise<RedisContext> {
  const resolved = resolveOptions(options);
  const keys = new RedisKeys(resolved.namespace);
  const tag = newInstanceTag();
  const connection = await connectRedis({
    url: resolved.url,
    connectTimeoutMs: resolved.connectTimeoutMs,
    socketTimeoutMs: resolved.socketTimeoutMs,
    name: `${resolved.namespace}:${tag}`,
    onError: resolved.onError,
  });
  const instance = new Instance(
    connection,
    keys,
    { heartbeatMs: resolved.heartbeatMs, onError: resolved.onError },
    tag,
  );
  const bus = new RedisBus(connection, keys, instance, resolved.onError);
  try {
    await bus.start();
    await instance.start();
  } catch (error) {
    await connection.close();
    throw error;
  }
  return { options: resolved, keys, connection, instance, bus };
}

function clusterOf(context: RedisContext): RedisCluster {
  const { connection, instance, bus, keys } = context;
  let closed: Promise<void> | undefined;
  return {
    instance: instance.tag,
    bus,
    get available() {
      return connection.available;
    },
    stats() {
      const { roundTrips, commands, reconnects } = connection.stats();
      const { published, received } = bus.stats();
      return { roundTrips, commands, published, received, reconnects };
    },
    async sharedSecret() {
      const candidate = Array.from(crypto.getRandomValues(new Uint8Array(32)), (byte) =>
        byte.toString(16).padStart(2, '0'),
      ).join('');
      // SET … NX GET: the stored secret, or nil when this call stored the candidate.
      const stored = await connection.command(['SET', keys.secret, candidate, 'NX', 'GET']);
      return typeof stored === 'string' ? stored : candidate;
    },
    close() {
      closed ??= (async () => {
        await instance.stop();
        await bus.close();
        await connection.close();
      })();
      return closed;
    },
  };
}
