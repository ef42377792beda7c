/**
 * Target: edge-mcp's stateless Worker (`createWorker` with the workerd handler options, no
 * sessions: 2026-07-28 in the isolate), under `wrangler dev` (bench/wrangler.jsonc), as the
 * adapters README deploys one. `/health` tells the bench it is ready.
 */
import { createWorker, WORKERD_HANDLER_OPTIONS } from '@edge-mcp/adapters/cloudflare';
import { createMcpHandler } from '@edge-mcp/core';
import { createEdgeServer } from './edge-tools.ts';

const worker = createWorker(() =>
  createMcpHandler(
    createEdgeServer(() => {}),
    { ...WORKERD_HANDLER_OPTIONS, sessions: false },
  ),
);

export default {
  fetch(request: Request, env: unknown, ctx: Parameters<typeof worker.fetch>[2]) {
    if (new URL(request.url).pathname === '/health') return new Response('ok');
    return worker.fetch(request, env, ctx);
  },
};
