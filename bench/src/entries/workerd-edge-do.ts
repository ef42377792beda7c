/**
 * Target: edge-mcp's session Worker as apps/worker deploys it, under `wrangler dev`
 * (bench/wrangler-edge-do.jsonc): every legacy session in its own Durable Object, its storage
 * counted by a subclass outside the adapter with COUNT_STORAGE=1 (the storage measure only).
 */
import {
  createSessionWorker,
  type DurableObjectNamespace,
  type DurableObjectState,
  defineSessionObject,
  WORKERD_HANDLER_OPTIONS,
} from '@edge-mcp/adapters/cloudflare';
import { createMcpHandler } from '@edge-mcp/core';
import { createEdgeServer } from './edge-tools.ts';
import { countStorage, storageCounts } from './storage-counter.ts';

interface Env {
  MCP_SESSIONS: DurableObjectNamespace;
  COUNT_STORAGE?: string;
}

const SessionObject = defineSessionObject(() => ({ server: createEdgeServer(() => {}) }));

/** The adapter's class, its storage counted in the storage measure. */
export class McpSession extends SessionObject {
  constructor(state: DurableObjectState, env: Env) {
    if (env.COUNT_STORAGE === '1') countStorage(state.storage);
    super(state, env);
  }
}

const worker = createSessionWorker({
  sessions: (env: Env) => env.MCP_SESSIONS,
  build: (_env, isolate) =>
    createMcpHandler(
      createEdgeServer(() => {}),
      { ...WORKERD_HANDLER_OPTIONS, ...isolate },
    ),
});

export default {
  fetch(request: Request, env: Env, ctx: Parameters<typeof worker.fetch>[2]) {
    const path = new URL(request.url).pathname;
    if (path === '/health') return new Response('ok');
    if (path === '/bench/storage') return Response.json(storageCounts());
    return worker.fetch(request, env, ctx);
  },
};
