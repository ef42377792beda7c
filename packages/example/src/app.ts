import { mcp } from '@edge-mcp/adapters/hono';
import type { McpHandler } from '@edge-mcp/core';
import { Hono } from 'hono';

/**
 * The Hono app every example serves: the MCP endpoint at `/mcp` next to the app's own routes, so
 * Hono middleware (CORS, auth, logging) can wrap the endpoint like any other route.
 */
export function createExampleApp(handler: McpHandler, runtime: string): Hono {
  const app = new Hono();
  app.get('/health', (c) => c.json({ ok: !handler.closed, runtime, ...handler.stats() }));
  app.all('/mcp', mcp(handler));
  return app;
}
