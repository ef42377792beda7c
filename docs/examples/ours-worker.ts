import {
  createSessionWorker,
  type DurableObjectNamespace,
  defineSessionObject,
  WORKERD_HANDLER_OPTIONS,
} from '@edge-mcp/adapters/cloudflare';
import { createMcpHandler } from '@edge-mcp/core';
import { createNotesServer } from './ours-server.ts';

interface Env {
  MCP_SESSIONS: DurableObjectNamespace;
  /** `wrangler secret put MCP_STATE_SECRET`: one HMAC key for every isolate and object. */
  MCP_STATE_SECRET: string;
}

// Each legacy session in its own Durable Object (SQLite storage): it outlives evictions and deploys.
export const McpSession = defineSessionObject((env: Env) => ({
  server: createNotesServer(),
  options: { requestState: { secret: env.MCP_STATE_SECRET } },
}));

// 2026-07-28 requests are served statelessly in the Worker; legacy requests go to their session.
export default createSessionWorker({
  sessions: (env: Env) => env.MCP_SESSIONS,
  build: (env: Env) =>
    createMcpHandler(createNotesServer(), {
      ...WORKERD_HANDLER_OPTIONS,
      requestState: { secret: env.MCP_STATE_SECRET },
    }),
});
