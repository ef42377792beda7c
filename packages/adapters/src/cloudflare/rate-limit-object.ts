/**
 * Rate limits shared by a whole Cloudflare deployment: the `rateLimit` buckets of every isolate
 * and every session object, in one Durable Object.
 *
 * A Worker's requests run in many handlers at once (each isolate's, and one per session object),
 * so buckets in memory would give a principal a fresh burst in each of them. The object is
 * single-threaded, which makes a take from several buckets atomic (all or none) without locks,
 * and it keeps the buckets in its SQLite storage, so an eviction of the object (after it idles
 * for a few seconds) does not hand every principal a full bucket again.
 *
 * @module
 */
import { DEFAULTS } from '@edge-mcp/core';
import {
  type BucketTake,
  type RateLimitStore,
  StoreUnavailableError,
} from '@edge-mcp/core/sessions';
import type { DurableObjectNamespace, DurableObjectState, SqlStorage } from './workers-types.ts';

const ORIGIN = 'https://edge-mcp.rate-limits';

/** One bucket of a take on the wire: `[key, perSecond, burst]`. */
type WireTake = [string, number, number];

export interface RateLimitObjectOptions {
  /**
   * Buckets kept at most; past it, those nearest to full are dropped first (a dropped bucket
   * refills early: the bound comes first). @default DEFAULTS.maxRateLimitBuckets (100000)
   */
  maxBuckets?: number;
}

/**
 * The Durable Object class holding the buckets: export it from the Worker and bind it (for
 * example as `RATE_LIMITS`, with a `new_sqlite_classes` migration), then give the handlers a
 * `DurableObjectRateLimitStore` of that binding.
 *
 * Storage layout: one table `mcp_rate_buckets(key PRIMARY KEY, tokens, at, full_at)`. A bucket
 * whose `full_at` has passed is what a missing one stands for, so such rows are deleted as takes
 * go by: storage holds the buckets in use, not every principal ever seen.
 */
export class RateLimitObject {
  readonly #sql: SqlStorage;
  readonly #max: number;
  #count: number;

  /** workerd passes `(state, env)`; a subclass passes options third (`super(state, env, { maxBuckets })`). */
  constructor(state: DurableObjectState, _env?: unknown, options: RateLimitObjectOptions = {}) {
    this.#sql = state.storage.sql;
    this.#max = options.maxBuckets ?? DEFAULTS.maxRateLimitBuckets;
    this.#sql.exec(
      'CREATE TABLE IF NOT EXISTS mcp_rate_buckets (key TEXT PRIMARY KEY, tokens REAL NOT NULL, at INTEGER NOT NULL, full_at INTEGER NOT NULL)',
    );
    this.#sql.exec(
      'CREATE INDEX IF NOT EXISTS mcp_rate_buckets_full ON mcp_rate_buckets (full_at)',
    );
    this.#count = this.#sql
      .exec<{ n: number }>('SELECT COUNT(*) AS n FROM mcp_rate_buckets')
      .one().n;
  }

  async fetch(request: Request): Promise<Response> {
    if (request.method !== 'POST' || new URL(request.url).pathname !== '/take')
      return new Response(null, { status: 404 });
    const takes = (await request.json()) as WireTake[];
    return Response.json(this.take(takes, Date.now()));
  }

  /** `0` when a token was taken from every bucket, else the ms until each has one. */
  take(takes: readonly WireTake[], now: number): number {
    const levels: number[] = [];
    const known: boolean[] = [];
    let wait = 0;
    for (const [key, perSecond, burst] of takes) {
      const row = this.#sql
        .exec<{ tokens: number; at: number }>(
          'SELECT tokens, at FROM mcp_rate_buckets WHERE key = ?',
          key,
        )
        .toArray()[0];
      const tokens =
        row === undefined
          ? burst
          : Math.min(burst, row.tokens + ((now - row.at) / 1000) * perSecond);
      levels.push(tokens);
      known.push(row !== undefined);
      if (tokens < 1) wait = Math.max(wait, Math.ceil(((1 - tokens) / perSecond) * 1000));
    }
    if (wait === 0) {
      for (let i = 0; i < takes.length; i++) {
        const [key, perSecond, burst] = takes[i] as WireTake;
        const tokens = (levels[i] as number) - 1;
        const fullAt = now + Math.ceil(((burst - tokens) / perSecond) * 1000);
        this.#sql.exec(
          'INSERT INTO mcp_rate_buckets (key, tokens, at, full_at) VALUES (?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET tokens = excluded.tokens, at = excluded.at, full_at = excluded.full_at',
          key,
          tokens,
          now,
          fullAt,
        );
        if (!known[i]) this.#count++;
      }
    }
    this.#trim(now);
    return wait;
  }

  /** Drops buckets that are full again (a few per take), then, past the bound, the fullest. */
  #trim(now: number): void {
    this.#count -= this.#sql.exec(
      'DELETE FROM mcp_rate_buckets WHERE key IN (SELECT key FROM mcp_rate_buckets WHERE full_at <= ? LIMIT 8)',
      now,
    ).rowsWritten;
    if (this.#count > this.#max)
      this.#count -= this.#sql.exec(
        'DELETE FROM mcp_rate_buckets WHERE key IN (SELECT key FROM mcp_rate_buckets ORDER BY full_at LIMIT ?)',
        this.#count - this.#max,
      ).rowsWritten;
  }
}

export interface DurableObjectRateLimitStoreOptions {
  /** The object's name in the namespace: stores of one name share buckets. @default 'rate-limits' */
  name?: string;
  /** `Retry-After` of the 503 answered when the object cannot be reached. @default 1 */
  retryAfterSeconds?: number;
}

/**
 * The core's `RateLimitStore` on a `RateLimitObject` namespace: give it as `rateLimit.store` to
 * the isolate's handler and to the session objects' (`defineSessionObject`'s options), so every
 * handler of the deployment takes from the same buckets. One round trip to the object per
 * limited request; the object's clock is the one every bucket uses. An object that cannot be
 * reached answers the request 503 (`storage-unavailable`) rather than letting it through.
 */
export class DurableObjectRateLimitStore implements RateLimitStore {
  readonly #namespace: DurableObjectNamespace;
  readonly #name: string;
  readonly #retryAfterSeconds: number;

  constructor(namespace: DurableObjectNamespace, options: DurableObjectRateLimitStoreOptions = {}) {
    this.#namespace = namespace;
    this.#name = options.name ?? 'rate-limits';
    this.#retryAfterSeconds = options.retryAfterSeconds ?? 1;
  }

  async take(buckets: readonly BucketTake[]): Promise<number> {
    const wire: WireTake[] = buckets.map(({ key, limit }) => [key, limit.perSecond, limit.burst]);
    // A stub per take: a stub made in one request may not be used from another on workerd.
    const stub = this.#namespace.get(this.#namespace.idFromName(this.#name));
    let answer: Response;
    try {
      answer = await stub.fetch(
        new Request(`${ORIGIN}/take`, { method: 'POST', body: JSON.stringify(wire) }),
      );
    } catch (error) {
      throw new StoreUnavailableError(
        'The rate-limit object cannot be reached',
        this.#retryAfterSeconds,
        {
          cause: error,
        },
      );
    }
    if (!answer.ok) {
      await answer.body?.cancel();
      throw new StoreUnavailableError(
        `The rate-limit object answered ${answer.status}`,
        this.#retryAfterSeconds,
      );
    }
    return Number(await answer.json());
  }
}
