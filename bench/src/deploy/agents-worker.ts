/**
 * The bundle a user deploys with Cloudflare's `agents` McpAgent (measured by `wrangler deploy
 * --dry-run`, src/measures/cloudflare.ts): `McpAgent.serve('/mcp')` with each session in a Durable
 * Object and the bench's three tools. McpAgent serves only an SDK v1 McpServer, whose tool
 * arguments and protocol messages are zod schemas: zod comes with it whatever the tools declare.
 * Nothing here is run by the bench.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpAgent } from 'agents/mcp';
import { registerSdkV1Tools } from '../entries/sdk-v1-tools.ts';

export class BenchAgent extends McpAgent {
  server = new McpServer({ name: 'bench', version: '1.0.0' });

  async init(): Promise<void> {
    registerSdkV1Tools(this.server);
  }
}

export default BenchAgent.serve('/mcp', { binding: 'MCP_OBJECT' });
