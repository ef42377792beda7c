/**
 * Target: edge-mcp on Deno or Bun through the runtime's adapter: the handler on PORT, the side
 * channel on SIDE_PORT, closed by the handler's shutdown so the process exits by itself.
 */
import { createMcpHandler, type McpHandler } from '@edge-mcp/core';
import { createEdgeServer } from './edge-tools.ts';
import { createSideChannel } from './side-channel.ts';
import { HOST, memory, PORT, SIDE_PORT, serve } from './web-env.ts';

let handler: McpHandler | undefined;
const side = createSideChannel({ memory, stats: () => handler?.stats() });
// As the README's server.mjs: what the runtime needs (Deno: streamAfterMs) spread in.
handler = createMcpHandler(createEdgeServer(side.abort));
await serve(handler, { port: PORT, hostname: HOST });
await serve(side, {
  port: SIDE_PORT,
  hostname: HOST,
  shutdownSignals: false,
  signal: handler.signal,
});
console.error('ready');
