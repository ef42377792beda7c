/**
 * A real OAuth 2.1 authorization server for tests: oidc-provider 9 on 127.0.0.1, configured as an
 * MCP client expects one (RFC 8414 metadata, dynamic client registration for public clients,
 * authorization code with PKCE S256, refresh tokens, RFC 8707 resource indicators minting RFC 9068
 * JWT access tokens whose `aud` is the requested resource), with oidc-provider's development
 * login and consent pages, so a real browser can sign in as `alice` or `bob`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from '@edge-mcp/test-kit/node';
import { exportJWK, generateKeyPair } from 'jose';
import Provider, {
  type Account,
  type ClientLike,
  errors as oidcErrors,
  type ResourceServerInfo,
} from 'oidc-provider';

export interface AuthorizationServerOptions {
  /** Who may sign in (any password). @default ['alice', 'bob'] */
  readonly accounts?: readonly string[];
  /** The scopes a resource grants. @default ['mcp:tools', 'mcp:read'] */
  readonly scopes?: readonly string[];
  /** Lifetime of access tokens. @default 300 */
  readonly accessTokenTtlSeconds?: number;
  /** Which resource indicators are served. @default every http(s) URL */
  readonly acceptsResource?: (resource: string) => boolean;
}

export interface AuthorizationServer {
  /** `http://127.0.0.1:<port>`: the issuer, and where the server listens. */
  readonly issuer: string;
  readonly port: number;
  /** Where the public keys are (`jwks_uri`). */
  readonly jwksUrl: string;
  /** RFC 8414 metadata: `<issuer>/.well-known/oauth-authorization-server`. */
  readonly metadataUrl: string;
  /** Errors the provider hit (`server_error`: a bug, not a refused request); a clean run leaves it empty. */
  readonly errors: unknown[];
  readonly provider: Provider;
  stop(): Promise<void>;
}

export const DEFAULT_SCOPES: readonly string[] = ['mcp:tools', 'mcp:read'];

export async function startAuthorizationServer(
  options: AuthorizationServerOptions = {},
): Promise<AuthorizationServer> {
  const accounts = new Set(options.accounts ?? ['alice', 'bob']);
  const scopes = options.scopes ?? DEFAULT_SCOPES;
  const ttl = options.accessTokenTtlSeconds ?? 300;
  const acceptsResource = options.acceptsResource ?? ((resource) => /^https?:\/\//.test(resource));
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;

  // ES256 signs the access tokens, RS256 the ID tokens (oidc-provider's default algorithm).
  const keys = await Promise.all(
    (['ES256', 'RS256'] as const).map(async (alg) => {
      const { privateKey } = await generateKeyPair(alg, { extractable: true });
      return { ...(await exportJWK(privateKey)), kid: `${alg.toLowerCase()}-1`, alg, use: 'sig' };
    }),
  );

  const provider = new Provider(issuer, {
    jwks: { keys },
    cookies: { keys: [crypto.randomUUID()] },
    scopes: ['openid', 'offline_access', ...scopes],
    claims: { openid: ['sub'] },
    findAccount: (_ctx: unknown, id: string): Account | undefined =>
      accounts.has(id) ? { accountId: id, claims: () => ({ sub: id }) } : undefined,
    pkce: { required: (): boolean => true },
    ttl: {
      AccessToken: ttl,
      AuthorizationCode: 60,
      Grant: 3600,
      Interaction: 600,
      RefreshToken: 3600,
      Session: 3600,
    },
    // Public clients get refresh tokens too (oidc-provider's default asks for offline_access).
    issueRefreshToken: (_ctx: unknown, client: ClientLike): boolean =>
      client.grantTypeAllowed('refresh_token'),
    features: {
      devInteractions: { enabled: true },
      registration: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        // One resource per authorization request; used at the token endpoint when not repeated.
        defaultResource: (_ctx: unknown, _client: unknown, oneOf?: string[]) => oneOf,
        useGrantedResource: (): boolean => true,
        getResourceServerInfo: (_ctx: unknown, resource: string): ResourceServerInfo => {
          if (!acceptsResource(resource)) throw new oidcErrors.InvalidTarget();
          return {
            scope: scopes.join(' '),
            audience: resource,
            accessTokenTTL: ttl,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'ES256' } },
          };
        },
      },
    },
  });

  const errors: unknown[] = [];
  provider.on('server_error', (_ctx: unknown, error: unknown) => errors.push(error));

  const server: Server = createServer(provider.callback());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const listening = (server.address() as AddressInfo).port;

  return {
    issuer,
    port: listening,
    jwksUrl: `${issuer}/jwks`,
    metadataUrl: `${issuer}/.well-known/oauth-authorization-server`,
    errors,
    provider,
    stop: (): Promise<void> =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
