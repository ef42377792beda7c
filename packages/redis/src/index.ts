/**
 * @module
 * edge-mcp on Redis: legacy sessions, their replayable events, tasks and server-wide events
 * shared by every instance of a server, so any instance serves any request of any session.
 * One factory (`redisBackend`), its options and stats, its errors and its defaults: the stores
 * it builds are reached through what it returns.
 */
export {
  type RedisBackend,
  type RedisBackendStats,
  type RedisHandlerOptions,
  redisBackend,
} from './backend.ts';
export { RedisReplyError, RedisUnavailableError } from './connection.ts';
export { SessionGoneError } from './event-store.ts';
export { REDIS_DEFAULTS, type RedisBackendOptions } from './options.ts';
