/**
 * Rate-limit buckets in Redis: every instance of a server takes from the same buckets, in one
 * script per request (atomic, so two instances never both take a bucket's last token).
 *
 * @module
 */
import type { BucketTake, RateLimitStore } from '@edge-mcp/core/sessions';
import type { RedisConnection } from './connection.ts';
import type { RedisKeys } from './keys.ts';
import { RATE_TAKE } from './scripts/rate-limits.ts';

/**
 * The core's `RateLimitStore` on Redis: give it as `rateLimit.store`. The buckets use Redis's
 * clock, not the instances', so the `now` the handler passes is not used.
 */
export class RedisRateLimitStore implements RateLimitStore {
  readonly #connection: RedisConnection;
  readonly #keys: RedisKeys;

  constructor(connection: RedisConnection, keys: RedisKeys) {
    this.#connection = connection;
    this.#keys = keys;
  }

  async take(buckets: readonly BucketTake[]): Promise<number> {
    const keys: string[] = [];
    const args: number[] = [];
    for (const { key, limit } of buckets) {
      keys.push(this.#keys.rateBucket(key));
      args.push(limit.perSecond, limit.burst);
    }
    return Number(await this.#connection.script(RATE_TAKE, keys, args));
  }
}
