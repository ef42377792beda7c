/**
 * Tokens a verifier has already accepted, so that a client sending the same bearer token with
 * every request pays for one signature check, not one per request. A JWT's signature, issuer and
 * audience do not change; what does is time, so an entry is used only while the token is
 * unexpired and for at most `maxAgeMs` after its check (key removal or rotation at the
 * authorization server is seen by then). Only accepted tokens enter, so junk tokens cannot evict
 * good ones; the oldest entry goes when the cache is full.
 *
 * @module
 */
import { DEFAULTS } from '../defaults.ts';
import type { AuthInfo } from './auth-info.ts';

/** The cache of verified tokens. */
export interface VerifiedTokenCacheOptions {
  /** How many tokens are kept at most. @default 1000 */
  readonly maxEntries?: number;
  /** How long a check stands, in milliseconds. @default 60000 */
  readonly maxAgeMs?: number;
}

/**
 * Longer tokens are verified every time, never kept: bounds the cache's bytes (about 4 MiB at
 * the default size) whatever clients send (access tokens are typically 1-2 KB).
 */
const MAX_CACHED_TOKEN_LENGTH = 4096;

interface Entry {
  readonly info: AuthInfo;
  /** Until when (ms since the epoch) the entry may be used: the earlier of exp and maxAge. */
  readonly until: number;
}

export class VerifiedTokens {
  readonly #entries = new Map<string, Entry>();
  readonly #maxEntries: number;
  readonly #maxAgeMs: number;

  constructor(options: VerifiedTokenCacheOptions = {}) {
    this.#maxEntries = options.maxEntries ?? DEFAULTS.jwt.cache.maxEntries;
    this.#maxAgeMs = options.maxAgeMs ?? DEFAULTS.jwt.cache.maxAgeMs;
    if (!Number.isInteger(this.#maxEntries) || this.#maxEntries < 1) {
      throw new TypeError('verified token cache: maxEntries must be a positive integer');
    }
    if (!Number.isFinite(this.#maxAgeMs) || this.#maxAgeMs <= 0) {
      throw new TypeError('verified token cache: maxAgeMs must be a positive number');
    }
  }

  /** The principal a token was verified for, while that check stands. */
  get(token: string, now: number = Date.now()): AuthInfo | undefined {
    const entry = this.#entries.get(token);
    if (entry === undefined) return undefined;
    if (now < entry.until) return entry.info;
    this.#entries.delete(token);
    return undefined;
  }

  /**
   * Keeps an accepted token's principal (frozen: it is shared by every request with the token)
   * and returns it. `expiresAt` is in seconds since the epoch.
   */
  set(token: string, info: AuthInfo, now: number = Date.now()): AuthInfo {
    const frozen = Object.freeze({ ...info, scopes: Object.freeze([...info.scopes]) });
    if (token.length > MAX_CACHED_TOKEN_LENGTH) return frozen;
    const expires = info.expiresAt === undefined ? Infinity : info.expiresAt * 1000;
    const until = Math.min(expires, now + this.#maxAgeMs);
    if (until <= now) return frozen;
    this.#entries.delete(token);
    if (this.#entries.size >= this.#maxEntries) {
      // Map order is insertion order: the first key is the oldest check.
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
    this.#entries.set(token, { info: frozen, until });
    return frozen;
  }

  get size(): number {
    return this.#entries.size;
  }
}
