/**
 * @module
 * A JWT access-token verifier for edge-mcp's resource server: give `jwtVerifier({ issuer,
 * audience })` as the `auth` option's `verify` hook. It checks the token's signature against the
 * authorization server's JSON Web Key Set (discovered from the issuer's metadata, cached, refetched
 * when a new `kid` shows up), its issuer, its expiry and not-before with a small clock skew, and
 * that it was minted **for this resource** (RFC 8707: a token whose `aud` does not name this
 * server is refused, so a token issued for another service is never accepted here).
 *
 * Built on `jose` (an optional peer dependency, Web Crypto only): it runs unchanged on Node, Deno,
 * Bun and Cloudflare Workers. A handler that does not import this entry point loads none of it.
 */
import { errors, type JWTPayload, jwtVerify } from 'jose';
import type { AuthInfo, TokenVerifier } from './auth/auth-info.ts';
import { DiscoveredKeys } from './auth/discovered-keys.ts';
import { checkIssuer, JwtVerifierUnavailableError } from './auth/issuer-metadata.ts';
import type { GetKey } from './auth/remote-key-set.ts';
import { type VerifiedTokenCacheOptions, VerifiedTokens } from './auth/verified-tokens.ts';
import { DEFAULTS } from './defaults.ts';
import { InvalidTokenError, type TokenRejection } from './errors.ts';

export { JwtVerifierUnavailableError } from './auth/issuer-metadata.ts';
export type { VerifiedTokenCacheOptions } from './auth/verified-tokens.ts';

/** How the verifier fetches and keeps the JSON Web Key Set. */
export interface JwksOptions {
  /**
   * After a successful fetch, how long a token with an unknown `kid` waits before it may trigger
   * another fetch (key rotation is picked up after at most this long; a flood of made-up `kid`s
   * cannot turn into a flood of fetches). @default 30000
   */
  readonly cooldownMs?: number;
  /** How long fetched keys are used before they are fetched again. @default 600000 */
  readonly cacheMaxAgeMs?: number;
  /** Timeout of each metadata or key-set request. @default 5000 */
  readonly timeoutMs?: number;
  /**
   * When a refetch of an expired key set fails (the authorization server is down), the keys last
   * fetched keep verifying for this long past their expiry, so an outage does not lock every user
   * out at once. `0` turns it off. @default 3600000
   */
  readonly staleIfErrorMs?: number;
}

export interface JwtVerifierOptions {
  /** The authorization server's issuer identifier; the token's `iss` must equal it exactly. */
  issuer: string;
  /**
   * This resource's identifier(s) (the MCP endpoint's URL, as clients send it in `resource=`):
   * the token's `aud` must contain one of them. Compared as exact strings.
   * @default the resource identifier the request addressed, as the handler passes it (its
   * `auth.resource`, or the URL built from it when that is a path); a call that passes none is
   * refused (`audience`)
   */
  audience?: string | readonly string[];
  /**
   * Where the key set is. @default the `jwks_uri` of the issuer's metadata
   * (`/.well-known/oauth-authorization-server`, then `/.well-known/openid-configuration`, RFC 8414
   * path rules), fetched on the first verification and kept.
   */
  jwksUrl?: string | URL;
  /** Clock skew allowed on `exp` and `nbf`, in seconds. @default 5 */
  clockToleranceSeconds?: number;
  /**
   * Signature algorithms accepted. @default every asymmetric JWS algorithm (RS*, PS*, ES*, EdDSA,
   * Ed25519); `none` and HMAC are never accepted (a key set holds public keys only).
   */
  algorithms?: readonly string[];
  /**
   * The claim that names the principal. @default `'sub'`, and, for a token without `sub`, its
   * `client_id`, then `azp` (a client-credentials token of an authorization server that leaves
   * `sub` out; RFC 9068 tokens always carry `sub`). A claim named here has no fallback.
   */
  principalClaim?: string;
  /** Scopes every token must carry; a token without one of them is refused (401). */
  requiredScopes?: readonly string[];
  /**
   * Accept only RFC 9068 access tokens (`typ: at+jwt`). @default false: `at+jwt`, `JWT` and no
   * `typ` are accepted; any other `typ` (a logout token, a DPoP proof, …) is refused.
   */
  requireAtJwt?: boolean;
  /** Fetching and caching of the key set. */
  jwks?: JwksOptions;
  /**
   * What an unreachable authorization server (metadata or key set cannot be fetched, and no
   * usable cached keys) means. `'throw'`: it throws a {@link JwtVerifierUnavailableError}, which
   * the handler answers 503 with `Retry-After` (the client keeps its token and retries, instead
   * of starting a new login that cannot succeed while the server is down). `'unauthorized'`: the
   * verifier returns `undefined` (401). @default 'throw'
   */
  unavailable?: 'unauthorized' | 'throw';
  /** The fetch used for metadata and keys (tests, proxies). @default globalThis.fetch */
  fetch?: typeof fetch;
  /**
   * Tokens already accepted are accepted again without another signature check, while unexpired
   * and for at most `maxAgeMs` after their check (a client sends the same token with every
   * request; the check is most of what authentication costs). Tokens over 4,096 characters are
   * never kept. `false` checks every request's token. @default { maxEntries: 1000, maxAgeMs: 60000 }
   */
  cache?: VerifiedTokenCacheOptions | false;
  /**
   * The clock (ms since the epoch) of the token's times (`exp`, `nbf`, `iat`), the verified-token
   * cache and the pause after a failed discovery; tests give a fake one. The key set's own cache
   * follows jose's clock. @default Date.now
   */
  now?: () => number;
}

const DEFAULT_ALGORITHMS: readonly string[] = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

/** Tokens longer than this are refused unparsed. */
const MAX_TOKEN_LENGTH = 16_384;
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** The options checked, with their defaults: what each verification reads. */
interface Settings {
  readonly issuer: string;
  /** `undefined`: the resource the handler passes with each token. */
  readonly audience: string[] | undefined;
  readonly clockTolerance: number;
  readonly algorithms: string[];
  readonly principalClaim: string | undefined;
  readonly requiredScopes: string[];
  readonly requireAtJwt: boolean;
  /** Only a given clock costs a Date per check. */
  readonly givenClock: boolean;
  readonly now: () => number;
}

/**
 * A {@link TokenVerifier} for JWT access tokens: a token that is not valid here throws an
 * `InvalidTokenError` naming the check it failed (`malformed`, `expired`, `not-yet-valid`,
 * `audience`, `issuer`, `signature`, `claims`), which the handler answers 401 with that
 * `error_description`. Throws at once (`TypeError`) for a misconfiguration.
 */
export function jwtVerifier(options: JwtVerifierOptions): TokenVerifier {
  const settings = settingsOf(options);
  const defaults = DEFAULTS.jwt.jwks;
  const jwks = options.jwks ?? {};
  const keys = new DiscoveredKeys(
    settings.issuer,
    {
      cooldownMs: jwks.cooldownMs ?? defaults.cooldownMs,
      cacheMaxAgeMs: jwks.cacheMaxAgeMs ?? defaults.cacheMaxAgeMs,
      staleIfErrorMs: jwks.staleIfErrorMs ?? defaults.staleIfErrorMs,
      timeoutMs: jwks.timeoutMs ?? defaults.timeoutMs,
      fetch: options.fetch,
    },
    options.jwksUrl,
    settings.now,
  );
  const verified = options.cache === false ? undefined : new VerifiedTokens(options.cache);
  const throwWhenUnavailable = options.unavailable !== 'unauthorized';
  return async (token, _request, resource): Promise<AuthInfo | undefined> => {
    if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH || !COMPACT_JWS.test(token)) {
      throw new InvalidTokenError('malformed');
    }
    // Without an audience of its own, the token must be for the resource the request addressed.
    const audience = settings.audience ?? (typeof resource === 'string' ? [resource] : undefined);
    if (audience === undefined) throw new InvalidTokenError('audience');
    const now = settings.now;
    const known = verified?.get(token, now());
    if (known !== undefined) {
      // A token checked before, maybe on another of this server's names: its audience again.
      if (settings.audience || includesAudience(known.claims?.aud, audience)) return known;
      throw new InvalidTokenError('audience');
    }
    try {
      const info = await verify(token, await keys.get(), settings, audience);
      return verified ? verified.set(token, info, now()) : info;
    } catch (error) {
      // Keys that cannot be had: a 503 (`throw`), or a refusal with no reason to give.
      if (error instanceof JwtVerifierUnavailableError) {
        if (throwWhenUnavailable) throw error;
        return undefined;
      }
      if (error instanceof InvalidTokenError) throw error;
      throw new InvalidTokenError(rejectionOf(error), { cause: error });
    }
  };
}

function settingsOf(options: JwtVerifierOptions): Settings {
  const issuer = checkIssuer(options.issuer);
  const given = options.audience;
  const audience: string[] | undefined =
    given === undefined ? undefined : typeof given === 'string' ? [given] : [...given];
  if (audience?.length === 0 || audience?.some((a) => typeof a !== 'string' || a === '')) {
    throw new TypeError('jwtVerifier: audience must name this resource (a non-empty string)');
  }
  const clockTolerance = options.clockToleranceSeconds ?? DEFAULTS.jwt.clockToleranceSeconds;
  if (!Number.isFinite(clockTolerance) || clockTolerance < 0) {
    throw new TypeError('jwtVerifier: clockToleranceSeconds must be a non-negative number');
  }
  return {
    issuer,
    audience,
    clockTolerance,
    algorithms: [...(options.algorithms ?? DEFAULT_ALGORITHMS)],
    principalClaim: options.principalClaim,
    requiredScopes: [...(options.requiredScopes ?? [])],
    requireAtJwt: options.requireAtJwt === true,
    givenClock: options.now !== undefined,
    // Read at each call, not captured: a clock a test fakes after the verifier was made still counts.
    now: options.now ?? (() => Date.now()),
  };
}

/** The signature and claims of one token, checked: who it is, with which scopes. */
async function verify(
  token: string,
  getKey: GetKey,
  settings: Settings,
  audience: string[],
): Promise<AuthInfo> {
  const { clockTolerance, now } = settings;
  const { payload, protectedHeader } = await jwtVerify(token, getKey, {
    issuer: settings.issuer,
    audience,
    clockTolerance,
    algorithms: settings.algorithms,
    requiredClaims: ['exp'],
    ...(settings.givenClock ? { currentDate: new Date(now()) } : {}),
  });
  // jose checks `iat` only against a maximum age; one in the future is refused here.
  if (typeof payload.iat === 'number' && payload.iat > now() / 1000 + clockTolerance)
    throw new InvalidTokenError('not-yet-valid');
  if (!typAccepted(protectedHeader.typ, settings.requireAtJwt))
    throw new InvalidTokenError('claims');
  const principal = principalOf(payload, settings.principalClaim);
  if (principal === undefined) throw new InvalidTokenError('claims');
  const scopes = scopesOf(payload);
  for (const scope of settings.requiredScopes)
    if (!scopes.includes(scope)) throw new InvalidTokenError('claims');
  return {
    principal,
    scopes,
    expiresAt: payload.exp,
    clientId: stringClaim(payload, 'client_id') ?? stringClaim(payload, 'azp'),
    claims: Object.freeze({ ...payload }),
  };
}

/** Whether a token's `aud` (a string or a list) names one of `audience`. */
function includesAudience(aud: unknown, audience: readonly string[]): boolean {
  if (typeof aud === 'string') return audience.includes(aud);
  return Array.isArray(aud) && aud.some((a) => audience.includes(a));
}

/** Which check a token failed, from what jose threw. */
function rejectionOf(error: unknown): TokenRejection {
  if (error instanceof errors.JWTExpired) return 'expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return 'audience';
    if (error.claim === 'iss') return 'issuer';
    if (error.claim === 'nbf' || error.claim === 'iat') return 'not-yet-valid';
    return 'claims';
  }
  if (
    error instanceof errors.JWSSignatureVerificationFailed ||
    error instanceof errors.JWKSNoMatchingKey ||
    error instanceof errors.JWKSMultipleMatchingKeys ||
    error instanceof errors.JOSEAlgNotAllowed
  )
    return 'signature';
  return 'malformed';
}

function typAccepted(typ: string | undefined, requireAtJwt: boolean): boolean {
  if (typ === undefined) return !requireAtJwt;
  // A media type, compared case-insensitively, with or without its `application/` prefix.
  const normalized = typ.toLowerCase().replace(/^application\//, '');
  return normalized === 'at+jwt' || (!requireAtJwt && normalized === 'jwt');
}

function stringClaim(payload: JWTPayload, name: string): string | undefined {
  const value = payload[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function principalOf(payload: JWTPayload, claim: string | undefined): string | undefined {
  if (claim !== undefined) return stringClaim(payload, claim);
  // Falls back only on an absent claim: a malformed `sub` refuses the token.
  for (const name of ['sub', 'client_id', 'azp']) {
    if (payload[name] !== undefined) return stringClaim(payload, name);
  }
  return undefined;
}

/** `scope` (space-separated, RFC 9068 / RFC 8693) or `scp` (an array, or a string, as some issue it). */
function scopesOf(payload: JWTPayload): string[] {
  const scopes = new Set<string>();
  for (const value of [payload.scope, payload.scp]) {
    const items = typeof value === 'string' ? value.split(' ') : Array.isArray(value) ? value : [];
    for (const item of items) if (typeof item === 'string' && item !== '') scopes.add(item);
  }
  return [...scopes];
}
