/**
 * The example MCP server as a Cloudflare Worker. Modern (2026-07-28) requests are served in the
 * isolate; legacy revisions are served without sessions here (an isolate cannot hold a session:
 * the next request may land in another one).
 */
import { createWorker, WORKERD_HANDLER_OPTIONS } from '@edge-mcp/adapters/cloudflare';
import { createMcpHandler } from '@edge-mcp/core';
import { createExampleApp, createExampleServer, requestLogger } from '@edge-mcp/example';

export interface Env {
  /** Comma-separated host names besides loopback, e.g. the workers.dev name of the deployment. */
  ALLOWED_HOSTS?: string;
  /** HMAC key of input-required requestState; set it (wrangler secret put) so every isolate shares it. */
  MCP_STATE_SECRET?: string;
  /** Keep-alive interval in ms (the bound on noticing a departed client); default 5000. */
  KEEP_ALIVE_MS?: string;
}

export default createWorker((env: Env) => {
  const handler = createMcpHandler(createExampleServer(), {
    ...WORKERD_HANDLER_OPTIONS,
    keepAliveMs: Number(env.KEEP_ALIVE_MS ?? WORKERD_HANDLER_OPTIONS.keepAliveMs),
    sessions: false,
    allowedHosts: env.ALLOWED_HOSTS?.split(',').filter(Boolean) ?? [],
    requestState: { secret: env.MCP_STATE_SECRET },
    onRequest: requestLogger((line) => console.error(line)),
  });
  return createExampleApp(handler, 'workerd');
});
