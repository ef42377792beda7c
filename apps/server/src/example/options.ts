import type { McpHandlerOptions } from '@edge-mcp/core';
import { jwtVerifier } from '@edge-mcp/core/jwt';

/** Reads one environment variable (`process.env`, `Deno.env`, a Worker's `env`). */
export type EnvReader = (name: string) => string | undefined;

function list(value: string | undefined): string[] {
  return (
    value
      ?.split(',')
      .map((item) => item.trim())
      .filter(Boolean) ?? []
  );
}

/**
 * The handler options every example app takes from its environment, so a user turns features on
 * without code:
 * - `ALLOWED_HOSTS`: extra host names the server is reached under (comma-separated);
 * - `MCP_TRUST_PROXY`: the reverse proxies in front whose forwarded headers count: a hop count
 *   (`1` for one nginx or load balancer) or their addresses and CIDR ranges (comma-separated,
 *   also `loopback`, `private`); the client address, the checked host and `ctx.request.url`
 *   then come from them;
 * - `MCP_AUTH_ISSUER` (and `MCP_AUTH_JWKS_URL` when the issuer publishes no metadata): require
 *   bearer tokens from that authorization server, checked by the JWT verifier; the audience is
 *   the resource identifier `MCP_RESOURCE_URL` (default: behind a proxy, `MCP_TRUST_PROXY` with
 *   `ALLOWED_HOSTS`, the URL each client addressed on those names; else `http://HOST:PORT/mcp`);
 *   `MCP_AUTH_SCOPES` lists the scopes the metadata advertises (comma-separated);
 * - `MCP_CORS_ORIGINS`: origins allowed to call from a browser (comma-separated, or `*`).
 */
export function exampleOptions(
  env: EnvReader,
  where: { host: string; port: number | string },
): McpHandlerOptions {
  const hosts = list(env('ALLOWED_HOSTS'));
  const options: McpHandlerOptions = { allowedHosts: hosts };
  const trust = env('MCP_TRUST_PROXY')?.trim();
  if (trust) options.trustProxy = /^\d+$/.test(trust) ? Number(trust) : list(trust);
  const issuer = env('MCP_AUTH_ISSUER');
  if (issuer) {
    const addressed = options.trustProxy !== undefined && hosts.length > 0;
    const resource =
      env('MCP_RESOURCE_URL') || (addressed ? '/mcp' : `http://${where.host}:${where.port}/mcp`);
    const jwksUrl = env('MCP_AUTH_JWKS_URL');
    const scopes = list(env('MCP_AUTH_SCOPES'));
    options.auth = {
      // No audience: each token must be for the resource identifier its request addressed.
      verify: jwtVerifier({ issuer, ...(jwksUrl ? { jwksUrl } : {}) }),
      resource,
      authorizationServers: [issuer],
      ...(scopes.length > 0 ? { scopesSupported: scopes } : {}),
    };
  }
  const origins = env('MCP_CORS_ORIGINS');
  if (origins) options.cors = { origins: origins.trim() === '*' ? '*' : list(origins) };
  return options;
}
