/**
 * The example MCP server as a Cloudflare Worker behind `@cloudflare/workers-oauth-provider`: the
 * provider is the OAuth 2.1 authorization server (metadata, dynamic client registration, token
 * endpoint, PKCE) and guards `/mcp`; edge-mcp serves the MCP endpoint as the provider's
 * `apiHandler`, with legacy sessions in Durable Objects bound to the user who signed in.
 *
 *   client ──POST /mcp (no token)──▶ provider: 401 + WWW-Authenticate resource_metadata=…
 *          ──GET /.well-known/oauth-protected-resource/mcp──▶ provider (RFC 9728)
 *          ──GET /.well-known/oauth-authorization-server──▶ provider (RFC 8414)
 *          ──POST /register──▶ provider (RFC 7591)
 *          ──GET /authorize (browser)──▶ defaultHandler (demo-sign-in.ts): DEMO sign-in + consent
 *          ──POST /token──▶ provider: access token for this resource (RFC 8707)
 *          ──POST /mcp (Bearer)──▶ provider checks the token, sets ctx.props / ctx.auth
 *                                   ──▶ createSessionWorker({ auth }) ──▶ ctx.auth in tools
 *                                                              └──▶ session's Durable Object
 *
 * The sign-in page is a DEMO: anyone may pick any user of a fixed list, without a password.
 * Replace `DEMO_USERS` (oauth-accounts.ts) and the form (demo-sign-in.ts) with real sign-in (your
 * own, or an upstream provider through the provider's `beginUpstream`/`finishUpstream`) before you
 * deploy anything real. It refuses to answer on a host that is not loopback unless `DEMO_SIGN_IN`
 * is "on".
 *
 * Run it: `pnpm start:oauth` (wrangler dev -c wrangler.oauth.jsonc), then point an MCP client at
 * http://127.0.0.1:8787/mcp.
 */
import { OAuthProvider } from '@cloudflare/workers-oauth-provider';
import { createSessionWorker, defineSessionObject } from '@edge-mcp/adapters/cloudflare';
import { createMcpHandler } from '@edge-mcp/core';
import { sessionLogger } from '@edge-mcp/example-server/example';
import { defaultHandler } from './demo-sign-in.ts';
import { principalFromProvider, REQUIRED_SCOPES, SCOPES } from './oauth-accounts.ts';
import { type OAuthEnv, resourceOf } from './oauth-env.ts';
import { createServer, log, options } from './oauth-mcp-server.ts';

// What this entry exported before its parts moved out, still importable from it.
export { DEMO_USERS, principalFromProvider } from './oauth-accounts.ts';
export { type OAuthEnv, resourceOf } from './oauth-env.ts';

/** One legacy session per object; it stores the principal that opened it. */
export const McpSession = defineSessionObject((env: OAuthEnv) => ({
  server: createServer(),
  options: {
    ...options(env),
    onSessionOpen: sessionLogger(log, 'session-open'),
    onSessionClose: sessionLogger(log, 'session-close'),
  },
  idleTimeoutMs: Number(env.IDLE_TIMEOUT_MS ?? 600_000),
  registry: env.SESSION_REGISTRY,
}));

export { SessionRegistry } from '@edge-mcp/adapters/cloudflare';

/**
 * The MCP endpoint, as the provider's `apiHandler`: it only ever sees requests whose token the
 * provider accepted for this resource. `auth` turns the provider's `ctx.props` into the
 * principal, which reaches `ctx.auth` in the isolate and, across the hop, the session's object.
 */
const mcp = createSessionWorker({
  sessions: (env: OAuthEnv) => env.MCP_SESSIONS,
  // Sessions capped per client and in all (the defaults: 1000 and 10000), counted by the registry.
  sessionLimits: (env: OAuthEnv) => ({ registry: env.SESSION_REGISTRY }),
  build: (env: OAuthEnv) => createMcpHandler(createServer(), options(env)),
  auth: (_request, _env, ctx) => principalFromProvider(ctx),
});

/**
 * The provider, built once per isolate: its options are fixed at construction, and the resource
 * it guards comes from the environment (known only at the first request).
 */
function createProvider(env: OAuthEnv): OAuthProvider<OAuthEnv> {
  return new OAuthProvider<OAuthEnv>({
    apiRoute: '/mcp', // createSessionWorker's path; MCP_RESOURCE_URL must end in it
    apiHandler: mcp,
    defaultHandler,
    authorizeEndpoint: '/authorize',
    tokenEndpoint: '/token',
    clientRegistrationEndpoint: '/register',
    scopesSupported: SCOPES,
    // RFC 9728: served at /.well-known/oauth-protected-resource/mcp and named in every 401. The
    // authorization server is this Worker (the token endpoint's origin) unless listed here.
    resourceMetadata: { resource: resourceOf(env), resource_name: 'edge-mcp example' },
    requiredScopes: REQUIRED_SCOPES,
  });
}

let provider: OAuthProvider<OAuthEnv> | undefined;

export default {
  fetch(request: Request, env: OAuthEnv, ctx: unknown): Promise<Response> {
    provider ??= createProvider(env);
    return provider.fetch(request, env, ctx as never);
  },
};
