/**
 * What every part of the package is built on, one per `redisBackend()`: its own file, so the parts
 * (sessions, tasks, streams, the heartbeat) can name it without importing the factory that builds
 * them.
 *
 * @module
 */
import type { RedisBus } from './bus.ts';
import type { RedisConnection } from './connection.ts';
import type { Instance } from './instance.ts';
import type { RedisKeys } from './keys.ts';
import type { ResolvedRedisOptions } from './options.ts';

/** What every part of the package is built on (one per `redisBackend()`). */
export interface RedisContext {
  readonly options: ResolvedRedisOptions;
  readonly keys: RedisKeys;
  readonly connection: RedisConnection;
  readonly instance: Instance;
  readonly bus: RedisBus;
}
