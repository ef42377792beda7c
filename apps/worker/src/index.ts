/**
 * The example MCP server as a Cloudflare Worker: 2026-07-28 requests are served statelessly in
 * the isolate; each legacy session (2025-03-26 … 2025-11-25) lives in its own Durable Object,
 * which keeps it across evictions and restarts.
 */
import {
  createSessionWorker,
  type DurableObjectNamespace,
  defineSessionObject,
  WORKERD_HANDLER_OPTIONS,
} from '@edge-mcp/adapters/cloudflare';
import { createMcpHandler, type McpHandlerOptions } from '@edge-mcp/core';
import {
  createExampleApp,
  createExampleServer,
  requestLogger,
  sessionLogger,
} from '@edge-mcp/example';

export interface Env {
  MCP_SESSIONS: DurableObjectNamespace;
  SESSION_REGISTRY: DurableObjectNamespace;
  /** Comma-separated host names besides loopback, e.g. the workers.dev name of the deployment. */
  ALLOWED_HOSTS?: string;
  /** HMAC key of input-required requestState; set it (wrangler secret put) so every isolate shares it. */
  MCP_STATE_SECRET?: string;
  /** Keep-alive interval in ms; a departed client is noticed within two of them. Default 2500. */
  KEEP_ALIVE_MS?: string;
  /** Session idle timeout in ms. Default 600000 (10 minutes). */
  IDLE_TIMEOUT_MS?: string;
}

function log(line: string): void {
  console.error(line);
}

function options(env: Env): McpHandlerOptions {
  return {
    ...WORKERD_HANDLER_OPTIONS,
    keepAliveMs: Number(env.KEEP_ALIVE_MS ?? 2500),
    allowedHosts: env.ALLOWED_HOSTS?.split(',').filter(Boolean) ?? [],
    requestState: { secret: env.MCP_STATE_SECRET },
    onRequest: requestLogger(log),
  };
}

/** One legacy session per object. */
export const McpSession = defineSessionObject((env: Env) => ({
  server: createExampleServer(),
  options: {
    ...options(env),
    onSessionOpen: sessionLogger(log, 'session-open'),
    onSessionClose: sessionLogger(log, 'session-close'),
  },
  idleTimeoutMs: Number(env.IDLE_TIMEOUT_MS ?? 600_000),
  registry: env.SESSION_REGISTRY,
}));

/** Live sessions of the deployment: `sessionControl(env.MCP_SESSIONS, env.SESSION_REGISTRY).closeAll()`. */
export { SessionRegistry } from '@edge-mcp/adapters/cloudflare';

export default createSessionWorker({
  sessions: (env: Env) => env.MCP_SESSIONS,
  build: (env: Env) =>
    createExampleApp(createMcpHandler(createExampleServer(), options(env)), 'workerd'),
});
