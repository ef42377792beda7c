/** The values that cross the connection: arguments, RESP2 replies, operations, errors. */
import type { RedisScript } from './scripts.ts';

export type RedisArg = string | number;
/** A RESP2 reply: simple and bulk strings, integers, nil, arrays. */
export type RedisReply = string | number | null | RedisReply[];
/** A plain command (`['HGET', key, field]`) or a script call. */
export type RedisOp =
  | readonly RedisArg[]
  | { script: RedisScript; keys: readonly string[]; args?: readonly RedisArg[] };

/** Redis cannot be reached: at start (`connectRedis`), or mid-run (a command failed for it). */
export class RedisUnavailableError extends Error {
  override readonly name = 'RedisUnavailableError';
}

/** Redis answered with an error (`WRONGTYPE`, a script's `error_reply`, …). */
export class RedisReplyError extends Error {
  override readonly name = 'RedisReplyError';
}
