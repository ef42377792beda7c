/** Target: edge-mcp on Deno (`@edge-mcp/adapters/deno`), side channel on SIDE_PORT. */
import { serve } from '@edge-mcp/adapters/deno';
import { createMcpHandler, type McpHandler } from '@edge-mcp/core';
import { createEdgeServer } from './edge-tools.ts';
import { createSideChannel, type Memory } from './side-channel.ts';

declare const Deno: { env: { get(name: string): string | undefined }; memoryUsage(): Memory };

const hostname = '127.0.0.1';
let handler: McpHandler | undefined;
const side = createSideChannel({ memory: () => Deno.memoryUsage(), stats: () => handler?.stats() });
// As the README's server.mjs: what the runtime needs (Deno: streamAfterMs) spread in.
handler = createMcpHandler(createEdgeServer(side.abort));
await serve(handler, { port: Number(Deno.env.get('PORT')), hostname });
await serve(side, {
  port: Number(Deno.env.get('SIDE_PORT')),
  hostname,
  shutdownSignals: false,
  signal: handler.signal,
});
console.error('ready');
