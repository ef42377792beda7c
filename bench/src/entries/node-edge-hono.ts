/**
 * Diagnostic target: the same edge-mcp handler on Node through `@hono/node-server` instead of the
 * edge-mcp Node adapter (Hono's adapter passes lightweight Request/Response objects and writes
 * string bodies directly), to separate the adapter's cost from the core's.
 */

import { createMcpHandler, type McpHandler } from '@edge-mcp/core';
import { serve } from '@hono/node-server';
import { createEdgeServer } from './edge-tools.ts';
import { HOST, nodeSideChannel, PORT, serveSideChannel } from './node-env.ts';

let handler: McpHandler | undefined;
const side = nodeSideChannel(() => handler?.stats());
handler = createMcpHandler(createEdgeServer(side.abort));
const { fetch } = handler;
await new Promise<void>((resolve) => {
  serve({ fetch, port: PORT, hostname: HOST }, () => resolve());
});
await serveSideChannel(side);
