/** `redisBackend()`'s options and their defaults (§4.11). */
import { DEFAULTS } from '@edge-mcp/core';
import { DEFAULT_NAMESPACE } from './keys.ts';

export interface RedisBackendOptions {
  /** `redis://[user:password@]host:port[/db]`; `rediss://` for TLS. */
  url: string;
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
  /** Reconnections, failed writes, ignored bus messages, warnings; must not throw. */
  onError?: (error: Error, where: string) => void;
}

/** The options with every default applied. */
export interface ResolvedRedisOptions {
  readonly url: string;
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
  readonly onError: (error: Error, where: string) => void;
}

export const REDIS_DEFAULTS = {
  heartbeatMs: 5000,
  maxReplicas: 10_000,
  connectTimeoutMs: 5000,
  socketTimeoutMs: 5000,
  linkTimeoutMs: 1000,
  retryAfterSeconds: 1,
} as const;

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0)
    throw new RangeError(`redisBackend: ${name} must be a positive number, got ${value}`);
  return value;
}

export function resolveOptions(options: RedisBackendOptions): ResolvedRedisOptions {
  if (typeof options?.url !== 'string' || options.url === '')
    throw new TypeError('redisBackend: url is required (redis://host:port)');
  const events = options.events;
  return {
    url: options.url,
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
    onError: options.onError ?? (() => {}),
  };
}
