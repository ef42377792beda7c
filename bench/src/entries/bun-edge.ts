/** Target: edge-mcp on Bun (`@edge-mcp/adapters/bun`), side channel on SIDE_PORT. */
import { serve } from '@edge-mcp/adapters/bun';
import { createMcpHandler, type McpHandler } from '@edge-mcp/core';
import { createEdgeServer } from './edge-tools.ts';
import { createSideChannel } from './side-channel.ts';

const hostname = '127.0.0.1';
let handler: McpHandler | undefined;
const side = createSideChannel({
  memory: () => process.memoryUsage(),
  stats: () => handler?.stats(),
});
// As the README's server.mjs: what the runtime needs (Deno: streamAfterMs) spread in.
handler = createMcpHandler(createEdgeServer(side.abort));
await serve(handler, { port: Number(process.env.PORT), hostname });
await serve(side, {
  port: Number(process.env.SIDE_PORT),
  hostname,
  shutdownSignals: false,
  signal: handler.signal,
});
console.error('ready');
