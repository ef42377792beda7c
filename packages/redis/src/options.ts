/** `redisBackend()`'s options and their defaults (§4.11). */
import { DEFAULTS } from '@edge-mcp/core';
import { DEFAULT_NAMESPACE, DEFAULT_PARTITIONS } from './keys.ts';

export interface RedisBackendOptions {
  /** One primary: `redis://[user:password@]host:port[/db]`; `rediss://` for TLS. */
  url?: string;
  /**
   * A sharded Redis Cluster instead: some of its nodes (`redis://host:port` each), from which the
   * rest is discovered. Sessions, their events and tasks are spread over the cluster's slots in
   * `partitions` partitions; see the README's "Redis Cluster".
   */
  nodes?: readonly string[];
  /**
   * Partitions of a cluster's data (`nodes` only), each one slot: every instance of a deployment
   * must use the same number. More spread the data over more shards. @default 64
   */
  partitions?: number;
  /** Key and channel prefix: several deployments may share one Redis @default 'edge-mcp' */
  namespace?: string;
  /** A session with nothing in flight anywhere for this long ends @default DEFAULTS.idleTimeoutMs */
  idleTimeoutMs?: number;
  /** Sessions in the whole cluster at most @default DEFAULTS.maxSessions */
  maxSessions?: number;
  /**
   * Sessions of one principal (its token's, else the client address) in the whole cluster at
   * most; at it, the principal's own longest-idle session is evicted, never another's, and when
   * all of its sessions are busy its `initialize` gets 429. Counted atomically in Redis.
   * @default DEFAULTS.maxSessionsPerPrincipal
   */
  maxSessionsPerPrincipal?: number;
  /**
   * Tasks one principal (or legacy session) keeps in Redis at most, running and finished; at it
   * its own oldest finished task is deleted, never another's, and when all of them run no new
   * task is created. Checked in the create script. @default DEFAULTS.tasks.maxTasksPerPrincipal
   */
  maxTasksPerPrincipal?: number;
  /** Liveness, activity refresh and sweeps @default 5000 */
  heartbeatMs?: number;
  /** Session replicas cached per instance @default 10000 */
  maxReplicas?: number;
  /** Bounds of each session's stored events, or `false` for no event store @default DEFAULTS */
  events?: { maxEventsPerSession?: number; maxEventBytesPerSession?: number } | false;
  /** The first connection @default 5000 */
  connectTimeoutMs?: number;
  /** A Redis that stops answering is noticed within it @default 5000 */
  socketTimeoutMs?: number;
  /** How long a relay waits for a stream holder's ack @default 1000 */
  linkTimeoutMs?: number;
  /** `Retry-After` of the 503s answered while Redis is unreachable @default 1 */
  retryAfterSeconds?: number;
  /**
   * Replicas that must have a write before it is answered (Redis `WAIT`, pipelined behind it): a
   * session's creation and changes, stored events and task writes then survive the failover of
   * their primary (Redis replicates asynchronously: without it, what the primary had not sent on
   * yet is lost with it). `0` for none. @default 1 with `nodes` (a cluster), 0 with `url`
   */
  waitForReplicas?: number;
  /** How long a write waits for `waitForReplicas`; then it is answered anyway @default 500 */
  replicaTimeoutMs?: number;
  /** Reconnections, failed writes, ignored bus messages, warnings; must not throw. */
  onError?: (error: Error, where: string) => void;
}

/** The options with every default applied. */
export interface ResolvedRedisOptions {
  /** The one primary's URL, or '' for a cluster. */
  readonly url: string;
  /** A cluster's seed nodes. */
  readonly nodes: readonly string[] | undefined;
  readonly partitions: number;
  readonly namespace: string;
  readonly idleTimeoutMs: number;
  readonly maxSessions: number;
  readonly maxSessionsPerPrincipal: number;
  readonly maxTasksPerPrincipal: number;
  readonly heartbeatMs: number;
  readonly maxReplicas: number;
  readonly events:
    | { readonly maxEventsPerSession: number; readonly maxEventBytesPerSession: number }
    | false;
  readonly connectTimeoutMs: number;
  readonly socketTimeoutMs: number;
  readonly linkTimeoutMs: number;
  readonly retryAfterSeconds: number;
  readonly waitForReplicas: number;
  readonly replicaTimeoutMs: number;
  readonly onError: (error: Error, where: string) => void;
}

export const REDIS_DEFAULTS = {
  heartbeatMs: 5000,
  maxReplicas: 10_000,
  connectTimeoutMs: 5000,
  socketTimeoutMs: 5000,
  linkTimeoutMs: 1000,
  retryAfterSeconds: 1,
  replicaTimeoutMs: 500,
} as const;

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0)
    throw new RangeError(`redisBackend: ${name} must be a positive number, got ${value}`);
  return value;
}

function nonNegative(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 0)
    throw new RangeError(`redisBackend: ${name} must be an integer >= 0, got ${value}`);
  return value;
}

export function resolveOptions(options: RedisBackendOptions): ResolvedRedisOptions {
  const nodes = options?.nodes;
  if (nodes !== undefined) {
    if (!Array.isArray(nodes) || nodes.length === 0 || nodes.some((n) => typeof n !== 'string'))
      throw new TypeError('redisBackend: nodes must be a non-empty list of redis://host:port');
    if (options.url !== undefined)
      throw new TypeError('redisBackend: give url (one primary) or nodes (a cluster), not both');
  } else if (typeof options?.url !== 'string' || options.url === '')
    throw new TypeError('redisBackend: url (redis://host:port) or nodes (a cluster) is required');
  const events = options.events;
  return {
    url: options.url ?? '',
    nodes,
    partitions: positive('partitions', options.partitions, DEFAULT_PARTITIONS),
    namespace: options.namespace ?? DEFAULT_NAMESPACE,
    idleTimeoutMs: positive('idleTimeoutMs', options.idleTimeoutMs, DEFAULTS.idleTimeoutMs),
    maxSessions: positive('maxSessions', options.maxSessions, DEFAULTS.maxSessions),
    maxSessionsPerPrincipal: positive(
      'maxSessionsPerPrincipal',
      options.maxSessionsPerPrincipal,
      DEFAULTS.maxSessionsPerPrincipal,
    ),
    maxTasksPerPrincipal: positive(
      'maxTasksPerPrincipal',
      options.maxTasksPerPrincipal,
      DEFAULTS.tasks.maxTasksPerPrincipal,
    ),
    heartbeatMs: positive('heartbeatMs', options.heartbeatMs, REDIS_DEFAULTS.heartbeatMs),
    maxReplicas: positive('maxReplicas', options.maxReplicas, REDIS_DEFAULTS.maxReplicas),
    events:
      events === false
        ? false
        : {
            maxEventsPerSession: positive(
              'events.maxEventsPerSession',
              events?.maxEventsPerSession,
              DEFAULTS.maxEventsPerSession,
            ),
            maxEventBytesPerSession: positive(
              'events.maxEventBytesPerSession',
              events?.maxEventBytesPerSession,
              DEFAULTS.maxEventBytesPerSession,
            ),
          },
    connectTimeoutMs: positive(
      'connectTimeoutMs',
      options.connectTimeoutMs,
      REDIS_DEFAULTS.connectTimeoutMs,
    ),
    socketTimeoutMs: positive(
      'socketTimeoutMs',
      options.socketTimeoutMs,
      REDIS_DEFAULTS.socketTimeoutMs,
    ),
    linkTimeoutMs: positive('linkTimeoutMs', options.linkTimeoutMs, REDIS_DEFAULTS.linkTimeoutMs),
    retryAfterSeconds: positive(
      'retryAfterSeconds',
      options.retryAfterSeconds,
      REDIS_DEFAULTS.retryAfterSeconds,
    ),
    waitForReplicas: nonNegative(
      'waitForReplicas',
      options.waitForReplicas,
      nodes === undefined ? 0 : 1,
    ),
    replicaTimeoutMs: positive(
      'replicaTimeoutMs',
      options.replicaTimeoutMs,
      REDIS_DEFAULTS.replicaTimeoutMs,
    ),
    onError: options.onError ?? (() => {}),
  };
}
