/**
 * Target: edge-mcp mounted in a Hono app (`app.all('/mcp', mcp(handler))`, next to another
 * route), served by the edge-mcp Node adapter: the way the README and `pnpm start` use it.
 */
import { mcp } from '@edge-mcp/adapters/hono';
import { serve } from '@edge-mcp/adapters/node';
import { createMcpHandler, type McpHandler } from '@edge-mcp/core';
import { MemorySessionManager } from '@edge-mcp/core/sessions';
import { Hono } from 'hono';
import { createEdgeServer } from './edge-tools.ts';
import { HOST, nodeSideChannel, PORT, serveSideChannel } from './node-env.ts';

let handler: McpHandler | undefined;
const side = nodeSideChannel(() => handler?.stats());
const mcpHandler = createMcpHandler(createEdgeServer(side.abort), {
  sessions: new MemorySessionManager({ maxSessions: Number(process.env.MAX_SESSIONS ?? 10_000) }),
});
handler = mcpHandler;
const app = new Hono();
app.get('/health', (c) => c.json({ ok: !mcpHandler.closed }));
app.all('/mcp', mcp(mcpHandler));
await serve({ fetch: app.fetch, close: () => mcpHandler.close() }, { port: PORT, hostname: HOST });
await serveSideChannel(side, mcpHandler.signal);
