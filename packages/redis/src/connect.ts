/** The start of an instance's connections to Redis. */
import { createClient, createCluster, RESP_TYPES } from '@redis/client';
import {
  checkDenoPermissions,
  clientConfig,
  evictionWarning,
  maskUrl,
  reconnectDelay,
  redisVersion,
  versionAtLeast,
} from './client-config.ts';
import { ClusterLink, type RedisLink, StandaloneLink } from './links.ts';
import { REDIS_DEFAULTS } from './options.ts';
import type { ConnectionOptions, RedisArg, RedisReply } from './redis-types.ts';
import { RedisUnavailableError } from './redis-types.ts';

type Client = ReturnType<typeof createClient>;
type Cluster = ReturnType<typeof createCluster>;
const ARRAYS = { [RESP_TYPES.MAP]: Array } as Record<number, unknown>;

/** What `openConnection` asks of the connection it makes (RedisConnection has these). */
interface Opened {
  command(args: readonly RedisArg[]): Promise<RedisReply>;
  loadScripts(): Promise<void>;
}

/**
 * Opens the link (both connections of one primary, or a cluster's) within `connectTimeoutMs` (no
 * retry before the first success), checks the server's version and eviction policy, loads the
 * scripts; `make` wraps the link.
 */
export async function openConnection<C extends Opened>(
  options: ConnectionOptions,
  make: (url: string, link: RedisLink) => C,
): Promise<C> {
  checkDenoPermissions();
  const seeds = options.nodes ?? [options.url ?? ''];
  const url = seeds.map(maskUrl).join(',');
  const timeouts = {
    connectTimeoutMs: options.connectTimeoutMs ?? REDIS_DEFAULTS.connectTimeoutMs,
    socketTimeoutMs: options.socketTimeoutMs ?? REDIS_DEFAULTS.socketTimeoutMs,
  };
  let established = false;
  const failures: Error[] = [];
  const noteFailure = (error: Error) => {
    if (!established) failures.push(error);
  };
  const { link, connect } =
    options.nodes === undefined
      ? standalone(seeds[0] as string, timeouts, () => established, options.name, noteFailure)
      : cluster(seeds, timeouts, () => established, options.name, noteFailure);
  const destroy = () => link.destroy();
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`timed out after ${timeouts.connectTimeoutMs} ms`)),
        timeouts.connectTimeoutMs,
      );
    });
    const connecting = connect();
    connecting.catch(() => {});
    await Promise.race([connecting, timedOut]);
  } catch (error) {
    destroy();
    const cause = failures[0] ?? (error as Error);
    const code = (cause as { code?: string }).code;
    throw new RedisUnavailableError(
      `Could not connect to Redis at ${url} (${code ?? cause.message})`,
      { cause },
    );
  } finally {
    clearTimeout(timer);
  }
  const connection = make(url, link);
  try {
    const version = redisVersion(String(await connection.command(['INFO', 'server']))) ?? '?';
    if (!versionAtLeast(version))
      throw new RedisUnavailableError(
        `Redis at ${url} is version ${version}; @edge-mcp/redis needs Redis 6.2 or later`,
      );
    // Sharded pub/sub (`SPUBLISH`, `SSUBSCRIBE`) came with Redis 7.
    if (options.nodes !== undefined && !versionAtLeast(version, [7, 0]))
      throw new RedisUnavailableError(
        `Redis Cluster at ${url} is version ${version}; @edge-mcp/redis needs Redis 7 or later for a cluster`,
      );
    await connection.loadScripts();
  } catch (error) {
    destroy();
    throw error;
  }
  try {
    const reply = await connection.command(['CONFIG', 'GET', 'maxmemory-policy']);
    const warning = evictionWarning(Array.isArray(reply) ? (reply[1] as string) : undefined);
    if (warning) options.onError?.(warning, 'config');
  } catch {
    // CONFIG is often disabled on managed Redis: nothing to check then.
  }
  established = true;
  return connection;
}

/** See `cluster()`. */
const TOPOLOGY_REFRESH_MS = 250;

interface Opening {
  link: RedisLink;
  connect(): Promise<unknown>;
}

/** One primary: a commands client and its duplicate for pub/sub. */
function standalone(
  url: string,
  timeouts: { connectTimeoutMs: number; socketTimeoutMs: number },
  established: () => boolean,
  name: string | undefined,
  noteFailure: (error: Error) => void,
): Opening {
  const config = clientConfig(url, timeouts, established, ARRAYS, name);
  const commands = createClient(config as Parameters<typeof createClient>[0]) as Client;
  const subscriber = commands.duplicate(
    name === undefined ? {} : { name: `${name}:sub` },
  ) as Client;
  for (const client of [commands, subscriber]) client.on('error', noteFailure);
  return {
    link: new StandaloneLink(commands, subscriber),
    connect: () => Promise.all([commands.connect(), subscriber.connect()]),
  };
}

/**
 * A sharded cluster from its seed nodes: node-redis discovers the rest (`CLUSTER SLOTS`) and gives
 * every node it connects to the same settings as one primary's connections. Commands go to
 * primaries only: a replica may lag behind a write the request just made.
 */
function cluster(
  seeds: readonly string[],
  timeouts: { connectTimeoutMs: number; socketTimeoutMs: number },
  established: () => boolean,
  name: string | undefined,
  noteFailure: (error: Error) => void,
): Opening {
  const { url: _url, ...defaults } = clientConfig(
    seeds[0] as string,
    timeouts,
    established,
    ARRAYS,
    name,
  );
  // A node's client retries at least every 500 ms (not 2 s): each attempt may refresh the
  // topology (below), which is how a promoted replica is found.
  defaults.socket.reconnectStrategy = (retries) =>
    established() ? Math.min(reconnectDelay(retries), 500) : false;
  const client = createCluster({
    rootNodes: seeds.map((url) => ({ url })),
    defaults: defaults as never,
    useReplicas: false,
    // A node that stops answering may have been failed over: the topology is asked again after
    // 250 ms of reconnecting (and every 250 ms while it lasts) rather than node-redis's 5 s, so
    // the promoted replica's sessions are served again soon after the promotion.
    topologyRefreshOnReconnectionAttemptStrategy: TOPOLOGY_REFRESH_MS,
  } as Parameters<typeof createCluster>[0]) as Cluster;
  client.on('error', noteFailure);
  return { link: new ClusterLink(client), connect: () => client.connect() };
}
