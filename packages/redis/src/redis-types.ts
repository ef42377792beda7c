/** The values that cross the connection: arguments, RESP2 replies, operations, errors. */
import { StoreUnavailableError } from '@edge-mcp/core/sessions';
import type { RedisScript } from './scripts.ts';

export type RedisArg = string | number;
/** A RESP2 reply: simple and bulk strings, integers, nil, arrays. */
export type RedisReply = string | number | null | RedisReply[];
/** A plain command (`['HGET', key, field]`) or a script call. */
export type RedisOp =
  | readonly RedisArg[]
  | { script: RedisScript; keys: readonly string[]; args?: readonly RedisArg[] };

/**
 * Redis cannot be reached: at start (`connectRedis`), or mid-run (a command failed for it). It is
 * the core's `StoreUnavailableError`, so a request that needed Redis is answered `503` with
 * `Retry-After: retryAfterSeconds` (`redisBackend`'s option of that name).
 */
export class RedisUnavailableError extends StoreUnavailableError {
  constructor(message: string, options?: { cause?: unknown; retryAfterSeconds?: number }) {
    super(message, options?.retryAfterSeconds, { cause: options?.cause });
    // The core's class names itself; this one keeps its own name in logs and stack traces.
    Object.defineProperty(this, 'name', { value: 'RedisUnavailableError', configurable: true });
  }
}

/** Redis answered with an error (`WRONGTYPE`, a script's `error_reply`, …). */
export class RedisReplyError extends Error {
  override readonly name = 'RedisReplyError';
}

/** How `connectRedis()` connects. */
export interface ConnectionOptions {
  /** `redis://[user:password@]host:port[/db]`, `rediss://` for TLS (one primary). */
  url?: string;
  /**
   * Seed nodes of a sharded Redis Cluster (`redis://host:port` each; the others are discovered),
   * instead of `url`.
   */
  nodes?: readonly string[];
  /** The first connection @default 5000 */
  connectTimeoutMs?: number;
  /** A Redis that stops answering is noticed within it @default 5000 */
  socketTimeoutMs?: number;
  /** `CLIENT SETNAME` of the commands connection (the subscriber gets `<name>:sub`). */
  name?: string;
  /** Connection lost and regained, scripts not reloaded, eviction policy; must not throw. */
  onError?: (error: Error, where: string) => void;
  /** `retryAfterSeconds` of the `RedisUnavailableError`s of a lost connection @default 1 */
  retryAfterSeconds?: number;
  /** Replicas a durable write waits for (`RedisConnection.durable`) @default 0 */
  waitForReplicas?: number;
  /** How long a durable write waits for them @default 500 */
  replicaTimeoutMs?: number;
}
