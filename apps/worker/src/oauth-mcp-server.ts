/**
 * The MCP server behind the provider and its handler options: the example server plus tools that
 * show the signed-in principal and need a scope, and options whose `auth` makes the handler's
 * challenges agree with the provider's. Both the isolate and each session's Durable Object build
 * from here, so the two serve the same tools under the same rules.
 */
import { WORKERD_HANDLER_OPTIONS } from '@edge-mcp/adapters/cloudflare';
import type { McpHandlerOptions } from '@edge-mcp/core';
import {
  createExampleServer,
  exampleOptions,
  requestLogger,
} from '@edge-mcp/example-server/example';
import { REQUIRED_SCOPES } from './oauth-accounts.ts';
import { type OAuthEnv, resourceOf } from './oauth-env.ts';

/**
 * The example server plus two tools: one that tells who is calling, as the handler sees it, and
 * one that needs the `mcp:admin` scope (a token without it gets 403 `insufficient_scope`).
 */
export function createServer() {
  const server = createExampleServer();
  server.tool(
    'auth_info',
    {
      description: 'Who is calling: the principal the OAuth provider signed in, scopes, client.',
    },
    (_args, ctx) =>
      JSON.stringify({
        principal: ctx.auth?.principal ?? null,
        scopes: ctx.auth?.scopes ?? [],
        clientId: ctx.auth?.clientId ?? null,
        session: ctx.session?.id ?? null,
        protocolVersion: ctx.protocolVersion,
      }),
  );
  server.tool(
    'admin_report',
    {
      description: 'Needs the mcp:admin scope (alice may grant it, bob may not).',
      scopes: ['mcp:admin'],
    },
    (_args, ctx) => `admin report for ${ctx.auth?.principal}`,
  );
  return server;
}

export function log(line: string): void {
  console.error(line);
}

export function options(env: OAuthEnv): McpHandlerOptions {
  // ALLOWED_HOSTS and MCP_CORS_ORIGINS as in every example; never the JWT verifier of MCP_AUTH_*.
  const { auth: _ignored, ...fromEnv } = exampleOptions(
    (name) => env[name as keyof OAuthEnv] as string | undefined,
    { host: 'localhost', port: 8787 },
  );
  const resource = resourceOf(env);
  return {
    ...WORKERD_HANDLER_OPTIONS,
    keepAliveMs: Number(env.KEEP_ALIVE_MS ?? 2500),
    ...fromEnv,
    // The provider checks the token; the handler gets the principal from the Worker (no `verify`).
    // The resource and its authorization server make the handler's own challenges agree with
    // the provider's: a 403 for a missing scope names the same metadata URL (step-up), and a
    // request that arrives without a principal is refused (401), never served anonymously.
    auth: {
      resource,
      authorizationServers: [new URL(resource).origin],
      scopesSupported: REQUIRED_SCOPES,
    },
    requestState: { secret: env.MCP_STATE_SECRET },
    onRequest: requestLogger(log),
  };
}
