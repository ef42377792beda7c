/**
 * Target: Cloudflare's `agents` 0.32 under `wrangler dev` (bench/wrangler-agents.jsonc), with the
 * same three tools as edge-mcp's, mounted as its documentation shows:
 *
 * - MODE=agent: `McpAgent.serve('/mcp')`, one Durable Object per legacy session, serving an SDK
 *   v1 McpServer (what McpAgent accepts). With COUNT_STORAGE=1 (the storage measure only, never
 *   a throughput run) the object's storage is counted (./storage-counter.ts) by the subclass,
 *   before McpAgent's constructor sees it.
 * - MODE=stateless: its `createMcpHandler` with an SDK v2 server factory, no objects.
 *
 * `/bench/storage` answers the counts, `/health` tells the bench it is ready.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createMcpHandler, McpAgent } from 'agents/mcp';
import { registerSdkV1Tools } from './sdk-v1-tools.ts';
import { buildSdkV2Server } from './sdk-v2-tools.ts';
import { countStorage, storageCounts } from './storage-counter.ts';

type AgentArgs = ConstructorParameters<typeof McpAgent>;

export class BenchAgent extends McpAgent {
  server = new McpServer({ name: 'bench', version: '1.0.0' });

  constructor(ctx: AgentArgs[0], env: AgentArgs[1]) {
    if ((env as { COUNT_STORAGE?: string }).COUNT_STORAGE === '1')
      countStorage((ctx as { storage: object }).storage);
    super(ctx, env);
  }

  async init(): Promise<void> {
    registerSdkV1Tools(this.server);
  }
}

const agent = BenchAgent.serve('/mcp', { binding: 'MCP_OBJECT' });
const stateless = createMcpHandler(() => buildSdkV2Server(), { route: '/mcp' });

type Ctx = Parameters<typeof agent.fetch>[2];

export default {
  fetch(request: Request, env: { MODE?: string }, ctx: Ctx) {
    const path = new URL(request.url).pathname;
    if (path === '/health') return new Response('ok');
    if (path === '/bench/storage') return Response.json(storageCounts());
    if (env.MODE === 'stateless') return stateless(request, env, ctx);
    return agent.fetch(request, env, ctx);
  },
};
