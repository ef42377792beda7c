import { type McpOptions, mcp } from '@edge-mcp/adapters/hono';
import type { McpHandler } from '@edge-mcp/core';
import { Hono } from 'hono';

/** Where a resource server's Protected Resource Metadata is served (RFC 9728). */
const METADATA = '/.well-known/oauth-protected-resource';

/**
 * The Hono app every example serves: the MCP endpoint at `/mcp` next to the app's own routes, so
 * Hono middleware (CORS, auth, logging) can wrap the endpoint like any other route. With the
 * handler's `auth` option, its Protected Resource Metadata is served at the well-known paths
 * (root and path-suffixed); the handler answers them itself (404 when auth is off). `options`
 * go to `mcp()` (e.g. `auth`, the principal earlier middleware verified).
 */
export function createExampleApp(
  handler: McpHandler,
  runtime: string,
  options: McpOptions = {},
): Hono {
  const app = new Hono();
  app.get('/health', (c) => c.json({ ok: !handler.closed, runtime, ...handler.stats() }));
  app.all('/mcp', mcp(handler, options));
  // Not routed: the handler matches the path to its resource's metadata itself.
  const metadata = (c: { req: { raw: Request } }) => handler.fetch(c.req.raw);
  app.all(METADATA, metadata);
  app.all(`${METADATA}/*`, metadata);
  return app;
}
