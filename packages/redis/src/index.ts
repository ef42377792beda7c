/**
 * @module
 * edge-mcp on Redis: legacy sessions, their replayable events, tasks and server-wide events
 * shared by every instance of a server, so any instance serves any request of any session.
 */
export { type BusChannel, type BusHandler, type BusStats, type Delivery, RedisBus } from './bus.ts';
export type { BusEnvelope, BusKind, BusMessage, BusMessages } from './bus-messages.ts';
export {
  type RedisCluster,
  type RedisClusterStats,
  type RedisHandlerOptions,
  redisCluster,
} from './cluster.ts';
export { RedisReplyError, RedisUnavailableError } from './connection.ts';
export { RedisEventStore, type RedisEventStoreOptions, SessionGoneError } from './event-store.ts';
export { REDIS_DEFAULTS, type RedisClusterOptions, type ResolvedRedisOptions } from './options.ts';
export { RedisSessionManager } from './session-manager.ts';
export { RedisTaskStore } from './task-store.ts';
