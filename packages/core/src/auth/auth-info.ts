import type { IncomingRequest } from '../http/incoming.ts';

/**
 * Who a request comes from, as a token verifier (or middleware in front of the handler) vouched
 * for it. Every piece of state the request creates (a legacy session, a task, an input-required
 * round) is bound to `principal`: another principal cannot see or touch it.
 */
export interface AuthInfo {
  /** The principal: the token's subject (for a client-credentials token, the client). */
  readonly principal: string;
  /** The scopes the token grants. */
  readonly scopes: readonly string[];
  /** When the token expires, in seconds since the epoch (JWT `exp`); requests after it get 401. */
  readonly expiresAt?: number | undefined;
  /** The OAuth client the token was issued to. */
  readonly clientId?: string | undefined;
  /** The token's claims as the verifier read them (never the token itself: no passthrough). */
  readonly claims?: Readonly<Record<string, unknown>> | undefined;
}

/**
 * Checks a bearer token: the principal it stands for; for a token that is not valid here, throw
 * an `InvalidTokenError` naming the check it failed (expired, audience, signature, …) or return
 * `undefined`. Throwing anything else says the verifier could not decide (its authorization
 * server is unreachable), answered 503 rather than 401. May be async. The handler passes
 * `resource`, the resource identifier the request addressed (`auth.resource`, or the URL built
 * from it when that is a path): the audience the token must be for.
 */
export type TokenVerifier = (
  token: string,
  request: IncomingRequest,
  resource?: string,
) => AuthInfo | undefined | Promise<AuthInfo | undefined>;
