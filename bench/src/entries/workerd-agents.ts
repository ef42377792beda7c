/**
 * Target: Cloudflare's `agents` 0.32 under `wrangler dev` (bench/wrangler-agents.jsonc), with the
 * three tools, mounted as its documentation shows: MODE=agent is `McpAgent.serve('/mcp')` (an SDK
 * v1 McpServer, one Durable Object per session, its storage counted by the subclass with
 * COUNT_STORAGE=1, before McpAgent's constructor sees it); MODE=stateless its `createMcpHandler`.
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
