/**
 * @module
 * edge-mcp on Redis: legacy sessions, their replayable events, tasks and server-wide events
 * shared by every instance of a server, so any instance serves any request of any session.
 */
export {
  type BusChannel,
  type BusHandler,
  type BusStats,
  type ClusterEvent,
  type ClusterHost,
  type Delivery,
  type ListKind,
  RedisBus,
} from './bus.ts';
export type { BusEnvelope, BusKind, BusMessage, BusMessages } from './bus-messages.ts';
export { type RedisCluster, type RedisClusterStats, redisCluster } from './cluster.ts';
export { RedisReplyError, RedisUnavailableError } from './connection.ts';
export { REDIS_DEFAULTS, type RedisClusterOptions, type ResolvedRedisOptions } from './options.ts';
