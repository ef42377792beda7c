/**
 * Token-bucket rate limits: per principal, per tool and per principal, and for the whole
 * handler. Each bucket holds at most `burst` tokens and gains `perSecond` of them a second; a
 * request takes one token from every bucket it falls under, all or none. Buckets live in a
 * `RateLimitStore`: in memory by default, in Redis (`@edge-mcp/redis`) to share them across
 * instances.
 *
 * @module
 */
import { DEFAULTS } from '../defaults.ts';

/** A bucket's shape: `burst` requests at once, `perSecond` requests a second sustained. */
export interface RateLimit {
  readonly perSecond: number;
  readonly burst: number;
}

/** The `rateLimit` option of `createMcpHandler()`. Every limit is off unless given. */
export interface RateLimitOptions {
  /** Requests of one principal (its token's, else its client address). */
  perPrincipal?: RateLimit;
  /**
   * `tools/call`s of one principal, per tool: by tool name, and `'*'` for every tool not named.
   */
  perTool?: Readonly<Record<string, RateLimit>>;
  /** Requests of every principal together (what the server as a whole takes). */
  total?: RateLimit;
  /** Where the buckets live. @default new MemoryRateLimitStore() */
  store?: RateLimitStore;
}

/** One bucket a request takes a token from: its key and its shape. */
export interface BucketTake {
  readonly key: string;
  readonly limit: RateLimit;
}

/**
 * Where buckets live, for storage implementers. `take` takes one token from each bucket, all or
 * none (atomically, for a store shared by instances): `0` when taken, else the milliseconds until
 * every bucket has one again. May answer with a promise.
 */
export interface RateLimitStore {
  take(buckets: readonly BucketTake[], now: number): number | Promise<number>;
  /**
   * Optional, synchronous, takes nothing: the milliseconds until every bucket has a token, `0`
   * when each has one now. It must keep neither the array nor its entries (they are reused). With it, a request whose principal (or the total) is out of tokens is
   * refused before its body is read; a store that must ask elsewhere leaves it out.
   */
  peek?(buckets: readonly BucketTake[], now: number): number;
}

export interface MemoryRateLimitStoreOptions {
  /**
   * Buckets kept at most; past it, full buckets (which a missing entry stands for) are dropped,
   * then the oldest. @default DEFAULTS.maxRateLimitBuckets (100000)
   */
  maxBuckets?: number;
}

interface Bucket {
  tokens: number;
  at: number;
  limit: RateLimit;
}

/** Tokens of a bucket at `now`: what it had, refilled since, at most `burst`. */
function level(bucket: Bucket | undefined, limit: RateLimit, now: number): number {
  if (bucket === undefined) return limit.burst;
  return Math.min(limit.burst, bucket.tokens + ((now - bucket.at) / 1000) * limit.perSecond);
}

/** Buckets in one process. Bounded: a client cycling through addresses cannot grow it. */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly #buckets = new Map<string, Bucket>();
  readonly #max: number;

  constructor(options: MemoryRateLimitStoreOptions = {}) {
    this.#max = options.maxBuckets ?? DEFAULTS.maxRateLimitBuckets;
  }

  get size(): number {
    return this.#buckets.size;
  }

  peek(buckets: readonly BucketTake[], now: number): number {
    let wait = 0;
    for (let i = 0; i < buckets.length; i++) {
      const { key, limit } = buckets[i] as BucketTake;
      const tokens = level(this.#buckets.get(key), limit, now);
      if (tokens < 1) wait = Math.max(wait, Math.ceil(((1 - tokens) / limit.perSecond) * 1000));
    }
    return wait;
  }

  take(buckets: readonly BucketTake[], now: number): number {
    const wait = this.peek(buckets, now);
    if (wait > 0) return wait;
    for (let i = 0; i < buckets.length; i++) {
      const { key, limit } = buckets[i] as BucketTake;
      const bucket = this.#buckets.get(key);
      // Changed in place: the map's order stays the order buckets were made in (what the trim
      // walks), and a busy bucket costs no re-insertion per request.
      if (bucket === undefined) this.#buckets.set(key, { tokens: limit.burst - 1, at: now, limit });
      else {
        bucket.tokens = level(bucket, limit, now) - 1;
        bucket.at = now;
        bucket.limit = limit;
      }
    }
    if (this.#buckets.size > this.#max) this.#trim(now);
    return 0;
  }

  #trim(now: number): void {
    // A full bucket is what a missing one stands for: dropping it changes nothing.
    for (const [key, bucket] of this.#buckets) {
      if (this.#buckets.size <= this.#max) return;
      if (level(bucket, bucket.limit, now) >= bucket.limit.burst) this.#buckets.delete(key);
    }
    // Then the oldest made (a drained bucket dropped refills early: the bound comes first).
    for (const key of this.#buckets.keys()) {
      if (this.#buckets.size <= this.#max) return;
      this.#buckets.delete(key);
    }
  }
}

/** The limits of one handler, built once: which buckets a request takes from. */
export class RateLimiter {
  readonly #perPrincipal: RateLimit | undefined;
  readonly #perTool: Readonly<Record<string, RateLimit>> | undefined;
  readonly #total: RateLimit | undefined;
  readonly #store: RateLimitStore;
  /** The one bucket of the whole handler: built once. */
  readonly #totalTake: BucketTake | undefined;
  /**
   * The buckets `early` peeks at, reused: `peek` is synchronous and keeps nothing, so the check
   * before every body costs no allocation.
   */
  readonly #peeked: BucketTake[] = [];
  readonly #principalPeek: { key: string; limit: RateLimit } | undefined;

  constructor(options: RateLimitOptions) {
    this.#perPrincipal = checked(options.perPrincipal, 'perPrincipal');
    this.#total = checked(options.total, 'total');
    if (options.perTool)
      for (const [name, limit] of Object.entries(options.perTool))
        checked(limit, `perTool[${JSON.stringify(name)}]`);
    this.#perTool = options.perTool;
    this.#store = options.store ?? new MemoryRateLimitStore();
    this.#totalTake = this.#total ? { key: '\u0000', limit: this.#total } : undefined;
    this.#principalPeek = this.#perPrincipal ? { key: '', limit: this.#perPrincipal } : undefined;
  }

  /**
   * Before the body is read: the milliseconds until `principal`'s bucket and the total have a
   * token again, `0` when they have one now (or the store cannot tell at once). Takes nothing:
   * `take` still decides once the message is known. A flood over its limit is then refused
   * without reading, parsing or holding its bodies.
   */
  early(principal: string, now: number): number {
    const peek = this.#store.peek;
    if (peek === undefined || (this.#principalPeek === undefined && this.#totalTake === undefined))
      return 0;
    const buckets = this.#peeked;
    buckets.length = 0;
    if (this.#totalTake) buckets.push(this.#totalTake);
    if (this.#principalPeek) {
      this.#principalPeek.key = principal;
      buckets.push(this.#principalPeek);
    }
    return peek.call(this.#store, buckets, now);
  }

  /**
   * Takes a token for a request of `principal` (a `tools/call` of `tool`): `0` when it may run,
   * else the milliseconds until it may.
   */
  take(principal: string, tool: string | undefined, now: number): number | Promise<number> {
    const buckets: BucketTake[] = [];
    if (this.#total) buckets.push(this.#totalTake as BucketTake);
    if (this.#perPrincipal) buckets.push({ key: principal, limit: this.#perPrincipal });
    if (tool !== undefined && this.#perTool) {
      const limit = this.#perTool[tool] ?? this.#perTool['*'];
      if (limit) buckets.push({ key: `${tool}\u0000${principal}`, limit });
    }
    return buckets.length === 0 ? 0 : this.#store.take(buckets, now);
  }
}

function checked(limit: RateLimit | undefined, what: string): RateLimit | undefined {
  if (limit === undefined) return undefined;
  const { perSecond, burst } = limit;
  if (!(perSecond > 0) || !Number.isFinite(perSecond) || !(burst >= 1) || !Number.isFinite(burst))
    throw new TypeError(
      `rateLimit.${what}: perSecond must be a positive number and burst a number of at least 1`,
    );
  return limit;
}
