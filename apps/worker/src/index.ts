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
  exampleOptions,
  requestLogger,
  sessionLogger,
} from '@edge-mcp/example-server/example';

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
  /** Require OAuth bearer tokens from this issuer (JWT access tokens; see the Authorization section). */
  MCP_AUTH_ISSUER?: string;
  /** The issuer's key set, when it publishes no metadata. */
  MCP_AUTH_JWKS_URL?: string;
  /** This deployment's MCP endpoint URL (the tokens' audience); required with MCP_AUTH_ISSUER. */
  MCP_RESOURCE_URL?: string;
  /** Scopes the metadata advertises (comma-separated). */
  MCP_AUTH_SCOPES?: string;
  /** Origins allowed to call from a browser (comma-separated, or *). */
  MCP_CORS_ORIGINS?: string;
}

function log(line: string): void {
  console.error(line);
}

function options(env: Env): McpHandlerOptions {
  return {
    ...WORKERD_HANDLER_OPTIONS,
    keepAliveMs: Number(env.KEEP_ALIVE_MS ?? 2500),
    // A Worker does not know its own URL: MCP_RESOURCE_URL names it when auth is on.
    ...exampleOptions((name) => env[name as keyof Env] as string | undefined, {
      host: 'localhost',
      port: 8787,
    }),
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
  // Sessions capped per client and in all (the defaults: 1000 and 10000), counted by the registry.
  sessionLimits: (env: Env) => ({ registry: env.SESSION_REGISTRY }),
  build: (env: Env) =>
    createExampleApp(createMcpHandler(createExampleServer(), options(env)), 'workerd'),
});
