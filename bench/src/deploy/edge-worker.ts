/**
 * The bundle a user deploys with edge-mcp on Cloudflare (measured by `wrangler deploy --dry-run`,
 * src/measures/cloudflare.ts): the session Worker with each legacy session in a Durable Object,
 * as apps/worker deploys it, and the bench's three tools with plain JSON Schemas, so no schema
 * library is bundled. Nothing here is run by the bench.
 */
import {
  createSessionWorker,
  type DurableObjectNamespace,
  defineSessionObject,
  WORKERD_HANDLER_OPTIONS,
} from '@edge-mcp/adapters/cloudflare';
import { createMcpHandler, McpServer } from '@edge-mcp/core';

interface Env {
  MCP_SESSIONS: DurableObjectNamespace;
}

const object = (properties: Record<string, { type: string }>) => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
});

function createServer(): McpServer {
  const server = new McpServer({ name: 'bench', version: '1.0.0' });
  server.tool('echo', { inputSchema: object({ text: { type: 'string' } }) }, (args) =>
    String(args.text),
  );
  server.tool(
    'add',
    { inputSchema: object({ a: { type: 'number' }, b: { type: 'number' } }) },
    (args) => String(Number(args.a) + Number(args.b)),
  );
  server.tool('sleep', { inputSchema: object({ ms: { type: 'number' } }) }, async (args, ctx) => {
    const ms = Number(args.ms);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, ms);
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(ctx.signal.reason);
      });
    });
    return `slept ${ms} ms`;
  });
  return server;
}

export const McpSession = defineSessionObject(() => ({ server: createServer() }));

export default createSessionWorker({
  sessions: (env: Env) => env.MCP_SESSIONS,
  build: (_env, isolate) =>
    createMcpHandler(createServer(), { ...WORKERD_HANDLER_OPTIONS, ...isolate }),
});
