/**
 * The authorization server's JSON Web Key Set as `jwtVerifier` uses it: jose's remote set (cached,
 * refetched on an unknown `kid` after a cooldown), and the keys last fetched standing in while
 * the server cannot be reached (`staleIfErrorMs`), probed once per cooldown.
 *
 * @module
 */
import {
  type CompactJWSHeaderParameters,
  type CryptoKey,
  createLocalJWKSet,
  createRemoteJWKSet,
  customFetch,
  type ExportedJWKSCache,
  errors,
  type FlattenedJWSInput,
  type JSONWebKeySet,
  jwksCache,
} from 'jose';
import { JwtVerifierUnavailableError } from './issuer-metadata.ts';

/** What a verifier asks its key set for: the key that checks this token's signature. */
export type GetKey = (
  header: CompactJWSHeaderParameters,
  token: FlattenedJWSInput,
) => Promise<CryptoKey>;

/** The key set's bounds, from `JwtVerifierOptions.jwks` with their defaults. */
export interface KeySetOptions {
  cooldownMs: number;
  cacheMaxAgeMs: number;
  staleIfErrorMs: number;
  timeoutMs: number;
  fetch: typeof fetch | undefined;
}

export function remoteKeySet(url: URL, options: KeySetOptions): GetKey {
  const { cooldownMs, cacheMaxAgeMs, staleIfErrorMs, timeoutMs, fetch: fetchImpl } = options;
  const cache: Partial<ExportedJWKSCache> = {};
  const remote = createRemoteJWKSet(url, {
    cooldownDuration: cooldownMs,
    cacheMaxAge: cacheMaxAgeMs,
    timeoutDuration: timeoutMs,
    [jwksCache]: cache as ExportedJWKSCache,
    ...(fetchImpl
      ? {
          [customFetch]: (href: string, init: RequestInit): Promise<Response> =>
            fetchImpl(href, init),
        }
      : {}),
  });
  let stale: { set: JSONWebKeySet; keys: GetKey } | undefined;
  let failedAt: number | undefined;
  /** The keys last fetched, while they may still stand in for a set that cannot be fetched. */
  const staleKeys = (): GetKey | undefined => {
    const { jwks: set, uat } = cache;
    if (!set || uat === undefined || Date.now() >= uat + cacheMaxAgeMs + staleIfErrorMs) {
      return undefined;
    }
    if (stale?.set !== set) stale = { set, keys: createLocalJWKSet(set) };
    return stale.keys;
  };
  return async (
    header: CompactJWSHeaderParameters,
    token: FlattenedJWSInput,
  ): Promise<CryptoKey> => {
    // After a failed refetch, the stale keys answer until the cooldown has passed: one probe of
    // the server per cooldown, not one (up to timeoutMs long) per request.
    if (failedAt !== undefined && Date.now() < failedAt + cooldownMs) {
      const fallback = staleKeys();
      if (fallback) return fallback(header, token);
    }
    try {
      const key = await remote(header, token);
      failedAt = undefined;
      return key;
    } catch (error) {
      if (!isFetchFailure(error)) throw error;
      failedAt = Date.now();
      const fallback = staleKeys();
      if (fallback) return fallback(header, token);
      throw new JwtVerifierUnavailableError(`JSON Web Key Set unavailable at ${url.href}`, {
        cause: error,
      });
    }
  };
}

/** A failure to fetch or read the key set, as opposed to a token that no key verifies. */
function isFetchFailure(error: unknown): boolean {
  if (!(error instanceof errors.JOSEError)) return true; // fetch's TypeError, an abort, …
  return (
    error instanceof errors.JWKSTimeout ||
    error instanceof errors.JWKSInvalid ||
    error.code === 'ERR_JOSE_GENERIC' // not 200, or not JSON
  );
}
