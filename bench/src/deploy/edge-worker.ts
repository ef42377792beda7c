/**
 * The bundle a user deploys with edge-mcp on Cloudflare (measured by `wrangler deploy --dry-run`,
 * src/measures/cloudflare.ts): the session Worker with each legacy session in a Durable Object,
 * as apps/worker deploys it, and the bench's three tools with plain JSON Schemas
 * (src/entries/plain-tools.ts), so no schema library is bundled. Nothing here is run by the bench.
 */
import {
  createSessionWorker,
  type DurableObjectNamespace,
  defineSessionObject,
  WORKERD_HANDLER_OPTIONS,
} from '@edge-mcp/adapters/cloudflare';
import { createMcpHandler } from '@edge-mcp/core';
import { createPlainServer as createServer } from '../entries/plain-tools.ts';

interface Env {
  MCP_SESSIONS: DurableObjectNamespace;
}

export const McpSession = defineSessionObject(() => ({ server: createServer() }));

export default createSessionWorker({
  sessions: (env: Env) => env.MCP_SESSIONS,
  build: (_env, isolate) =>
    createMcpHandler(createServer(), { ...WORKERD_HANDLER_OPTIONS, ...isolate }),
});
