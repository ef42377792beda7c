import type { AuthInfo, TokenVerifier } from '../auth/auth-info.ts';
import { InvalidTokenError, McpError, type TokenRejection } from '../errors.ts';
import { bearerChallenge, bearerToken } from '../http/bearer.ts';
import { addressedUrl, type Forwarding } from '../http/forwarded.ts';
import type { IncomingRequest } from '../http/incoming.ts';
import type { RefusalReason } from '../http/refusal.ts';
import { jsonResponse, overBudget, type Reply, refuse, refused } from '../http/responses.ts';
import { ErrorCode } from '../protocol/constants.ts';
import { type ResourceFacts, ResourceIdentity } from './resource-identity.ts';

/**
 * The `auth` option: edge-mcp as an OAuth 2.1 resource server (MCP authorization, RFC 9728,
 * RFC 8707, RFC 6750). Every request must carry a bearer token that `verify` accepts, or come
 * from an integration that vouched for its principal (Hono's `mcp(handler, { auth })`, a Worker
 * behind `@cloudflare/workers-oauth-provider`).
 */
export interface AuthOptions {
  /**
   * Checks a bearer token (`jwtVerifier()` from `@edge-mcp/core/jwt`, or your own). Omit it when
   * middleware in front of the handler authenticates and passes the principal on.
   */
  verify?: TokenVerifier;
  /**
   * This server's resource identifier, the MCP endpoint's canonical URL
   * (`https://mcp.example.com/mcp`): the Protected Resource Metadata's `resource`, and the
   * audience tokens must be issued for (RFC 8707).
   *
   * Or a path (`/mcp`) for a server reached under several names: the identifier is then the
   * endpoint's URL as each client addressed it (behind the proxies `trustProxy` trusts, with the
   * scheme and host they forwarded), built only on the hosts `allowedHosts` lists (which it
   * requires; a request to another host gets 403). `jwtVerifier()` without an `audience` checks
   * each token against that URL.
   */
  resource: string;
  /** Issuers of the authorization servers clients get tokens from (RFC 9728 `authorization_servers`). */
  authorizationServers: readonly string[];
  /** Scopes to advertise (RFC 9728 `scopes_supported`). */
  scopesSupported?: readonly string[];
  /** A human-readable name of the resource (RFC 9728 `resource_name`). */
  resourceName?: string;
  /**
   * Leave out of `tools/list`, `prompts/list`, `resources/list` and `resources/templates/list`
   * what the principal lacks the scopes to use. @default false
   */
  hideUnauthorized?: boolean;
}

/** Clock skew allowed on `expiresAt` (as `jwtVerifier` allows on `exp`). */
const EXPIRY_SKEW_SECONDS = 5;

/** A call needs scopes the principal's token does not grant (403, step-up). */
export class InsufficientScopeError extends McpError {
  override readonly name: string = 'InsufficientScopeError';
  readonly scopes: readonly string[];
  constructor(scopes: readonly string[]) {
    super(ErrorCode.ServerError, `Insufficient scope: this needs ${scopes.join(' ')}`, {
      status: 403,
      data: { requiredScopes: scopes },
    });
    this.scopes = scopes;
  }
}

/** Whether `auth` grants every scope in `required` (nothing required, or no principal: yes). */
export function grants(
  auth: AuthInfo | undefined,
  required: readonly string[] | undefined,
): boolean {
  if (auth === undefined || required === undefined) return true;
  for (const scope of required) if (!auth.scopes.includes(scope)) return false;
  return true;
}

/** Throws `InsufficientScopeError` unless `auth` grants `required`. */
export function requireScopes(
  auth: AuthInfo | undefined,
  required: readonly string[] | undefined,
): void {
  if (!grants(auth, required)) throw new InsufficientScopeError(required as readonly string[]);
}

/** The resource server of one handler: its metadata, challenges and authentication, built once. */
export class ResourceServer {
  readonly verify: TokenVerifier | undefined;
  readonly hideUnauthorized: boolean;
  /** Where the metadata document is served: the path-suffixed well-known URL and the root one. */
  readonly metadataPaths: ReadonlySet<string>;
  readonly #identity: ResourceIdentity;

  constructor(options: AuthOptions, allowedHosts?: readonly string[] | '*') {
    this.verify = options.verify;
    this.hideUnauthorized = options.hideUnauthorized ?? false;
    this.#identity = new ResourceIdentity(options.resource, options, allowedHosts);
    this.metadataPaths = this.#identity.metadataPaths;
  }

  /**
   * What this server is to a request (its resource identifier, metadata URL and document);
   * `undefined` when `resource` is a path and the host the request addressed is not listed.
   * Only then is the addressed URL read.
   */
  factsAt(request: IncomingRequest, forwarding: Forwarding | undefined): ResourceFacts | undefined {
    const identity = this.#identity;
    return identity.of(identity.addressed ? addressedUrl(request, forwarding) : request.url);
  }

  /** The same, for a call whose request's addressed URL is known (`ctx.request.url`). */
  factsOf(url: () => string): ResourceFacts | undefined {
    const identity = this.#identity;
    return identity.of(identity.addressed ? url() : '');
  }

  /** The Protected Resource Metadata document (RFC 9728), readable from any origin. */
  metadata(facts: ResourceFacts): Reply {
    return jsonResponse(facts.document, 200, METADATA_HEADERS);
  }

  /**
   * The principal of a request: the one an integration vouched for (`given`), else the one its
   * bearer token stands for; a 401 with a challenge that says where to find the metadata when
   * there is none, or when the token is invalid or expired.
   */
  async authenticate(
    request: IncomingRequest,
    given: AuthInfo | undefined,
    facts: ResourceFacts,
  ): Promise<AuthInfo | Reply> {
    let auth = given;
    if (auth === undefined) {
      const token = bearerToken(request);
      if (token === undefined) return this.unauthorized('token-missing', facts);
      // RFC 6750 §3.1: a request that is malformed (another scheme, a bare `Bearer`) is an
      // `invalid_request`; still a 401 with the challenge, so a client can find the metadata.
      if (token === false) return this.unauthorized('token-scheme', facts);
      if (this.verify === undefined) return this.unauthorized('token-invalid', facts);
      try {
        auth = await this.verify(token, request, facts.resource);
      } catch (error) {
        if (error instanceof InvalidTokenError)
          return this.unauthorized(`token-${error.rejection}`, facts);
        // The verifier could not decide (its authorization server is unreachable): not the
        // token's fault, so no 401 that would send the client into a new login; a retry will do.
        return refused(
          overBudget(
            503,
            'The authorization server cannot be reached to check the token',
            undefined,
            5,
          ),
          'auth-unavailable',
        );
      }
      if (auth === undefined) return this.unauthorized('token-invalid', facts);
    }
    // The same small tolerance a JWT verifier gives `exp`, so a token it just accepted passes.
    if (auth.expiresAt !== undefined && (auth.expiresAt + EXPIRY_SKEW_SECONDS) * 1000 <= Date.now())
      return this.unauthorized('token-expired', facts);
    return auth;
  }

  /** `WWW-Authenticate` of a 403 for a call that needs more scopes (the client may step up). */
  insufficientScope(scopes: readonly string[], facts: ResourceFacts): Record<string, string> {
    return {
      'www-authenticate': bearerChallenge({
        error: 'insufficient_scope',
        scope: scopes.join(' '),
        resource_metadata: facts.metadataUrl,
      }),
    };
  }

  /** The 401 for `reason`: its challenge says which check failed, never what the token was. */
  unauthorized(reason: TokenRefusal, facts: ResourceFacts): Reply {
    const description = TOKEN_DESCRIPTIONS[reason];
    const challenge = bearerChallenge({
      error: reason === 'token-missing' ? undefined : (TOKEN_ERRORS[reason] ?? 'invalid_token'),
      error_description: reason === 'token-missing' ? undefined : description,
      resource_metadata: facts.metadataUrl,
    });
    return refuse(reason, 401, ErrorCode.ServerError, description, undefined, undefined, {
      'www-authenticate': challenge,
    });
  }
}

/** The refusals of a request's token, all answered 401. */
export type TokenRefusal = Extract<RefusalReason, `token-${string}`>;

/**
 * The `error_description` (and JSON-RPC message) of each 401 (RFC 6750 §3). Every
 * `TokenRejection` of a verifier has its `token-` reason here: the type says so.
 */
const TOKEN_DESCRIPTIONS: Readonly<Record<TokenRefusal, string>> &
  Readonly<Record<`token-${TokenRejection}`, string>> = {
  'token-missing': 'Authorization required: send a bearer token',
  'token-scheme': 'The Authorization header must carry a Bearer access token',
  'token-malformed': 'The access token is malformed',
  'token-expired': 'The access token expired',
  'token-not-yet-valid': 'The access token is not valid yet',
  'token-audience': 'The access token was issued for another resource',
  'token-issuer':
    'The access token was issued by an authorization server this server does not trust',
  'token-signature': 'The access token signature does not verify',
  'token-claims': 'The access token lacks a claim this server needs',
  'token-invalid': 'The access token is not valid here',
};

/** The RFC 6750 error code of a 401 other than `invalid_token`. */
const TOKEN_ERRORS: Partial<Record<TokenRefusal, string>> = { 'token-scheme': 'invalid_request' };

/**
 * The 401 of a token refusal: the resource server's, with its challenge; without the `auth`
 * option (an integration in front rejected the token), a 401 without one.
 */
export function refuseToken(
  server: ResourceServer | undefined,
  reason: TokenRefusal,
  facts: ResourceFacts | undefined,
): Reply {
  if (server && facts) return server.unauthorized(reason, facts);
  return refuse(reason, 401, ErrorCode.ServerError, TOKEN_DESCRIPTIONS[reason]);
}

const METADATA_HEADERS: Readonly<Record<string, string>> = {
  'access-control-allow-origin': '*',
  'cache-control': 'public, max-age=3600',
};

/**
 * The 403 challenge of a call without its scopes. Without the handler's `auth` option (an
 * integration vouched for the principal) it names no metadata, but still says which scopes to
 * step up to.
 */
export function insufficientScope(
  server: ResourceServer | undefined,
  scopes: readonly string[],
  url: () => string,
): Record<string, string> {
  const facts = server?.factsOf(url);
  if (server && facts) return server.insufficientScope(scopes, facts);
  return {
    'www-authenticate': bearerChallenge({ error: 'insufficient_scope', scope: scopes.join(' ') }),
  };
}
