/** Target: edge-mcp on Deno (`@edge-mcp/adapters/deno`), side channel on SIDE_PORT. */
import { serve } from '@edge-mcp/adapters/deno';
import type { Memory } from './side-channel.ts';
import { serveEdge } from './web-edge.ts';

declare const Deno: { env: { get(name: string): string | undefined }; memoryUsage(): Memory };

await serveEdge(
  serve,
  (name) => Deno.env.get(name),
  () => Deno.memoryUsage(),
);
