/** Target: edge-mcp on Bun (`@edge-mcp/adapters/bun`), side channel on SIDE_PORT. */
import { serve } from '@edge-mcp/adapters/bun';
import { serveEdge } from './web-edge.ts';

await serveEdge(
  serve,
  (name) => process.env[name],
  () => process.memoryUsage(),
);
