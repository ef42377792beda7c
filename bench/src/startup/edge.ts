/**
 * edge-mcp's start-up bundle, the same source for Node, Deno and Bun: `@edge-mcp/adapters`
 * resolves to the runtime's adapter through its export conditions (the bundler is told which),
 * as a server written from the README and bundled for its runtime is.
 */
import { serve } from '@edge-mcp/adapters';
import { createMcpHandler } from '@edge-mcp/core';
import { createEdgeServer } from '../entries/edge-tools.ts';
import { HOSTNAME, port } from './env.ts';

await serve(createMcpHandler(createEdgeServer(() => {})), { port: port(), hostname: HOSTNAME });
