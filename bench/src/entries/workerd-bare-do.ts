/**
 * Target: the ceiling of a Durable Object hop under `wrangler dev` (bench/wrangler-edge-do.jsonc):
 * a bare Worker that reads the body and hands it to one object (named, so no session to open),
 * which answers the bare echo result. What the session targets pay for the hop itself, before
 * any MCP library. `/health` tells the bench it is ready.
 */
import type { DurableObjectNamespace } from '@edge-mcp/adapters/cloudflare';
import { bareFetch } from './bare-result.ts';

interface Env {
  MCP_SESSIONS: DurableObjectNamespace;
}

/** Bound as MCP_SESSIONS (the class name the config shares with workerd-edge-do.ts). */
export class McpSession {
  fetch(request: Request): Promise<Response> {
    return bareFetch(request);
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    if (new URL(request.url).pathname === '/health') return new Response('ok');
    // Read here and sent on as text, as edge-mcp's session Worker does.
    const body = await request.text();
    const object = env.MCP_SESSIONS.get(env.MCP_SESSIONS.idFromName('bench'));
    return object.fetch(new Request(request, { body }));
  },
};
