/**
 * The edge-mcp targets on Deno and Bun, which differ only in their adapter's `serve` and in how
 * they read the environment and the memory: the handler on PORT, the side channel on SIDE_PORT,
 * closed by the handler's shutdown so the process exits by itself. Web APIs only.
 */
import { createMcpHandler, type McpHandler } from '@edge-mcp/core';
import { createEdgeServer } from './edge-tools.ts';
import { createSideChannel, type Memory } from './side-channel.ts';

/** What the Deno and Bun adapters' `serve` both take. */
type Serve = (
  handler: { fetch(request: Request): Response | Promise<Response> },
  options: { port: number; hostname: string; shutdownSignals?: false; signal?: AbortSignal },
) => Promise<unknown>;

export async function serveEdge(
  serve: Serve,
  env: (name: string) => string | undefined,
  memory: () => Memory,
): Promise<void> {
  const hostname = '127.0.0.1';
  let handler: McpHandler | undefined;
  const side = createSideChannel({ memory, stats: () => handler?.stats() });
  // As the README's server.mjs: what the runtime needs (Deno: streamAfterMs) spread in.
  handler = createMcpHandler(createEdgeServer(side.abort));
  await serve(handler, { port: Number(env('PORT')), hostname });
  await serve(side, {
    port: Number(env('SIDE_PORT')),
    hostname,
    shutdownSignals: false,
    signal: handler.signal,
  });
  console.error('ready');
}
