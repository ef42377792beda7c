/**
 * The benchmark's server on `@modelcontextprotocol/server` 2.4: the same `echo`, `add` and
 * `sleep` tools as edge-mcp's (src/entries/edge-tools.ts). Web APIs only: the Node targets and the
 * start-up bundles of every runtime share it.
 */
import { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { sleepFor } from './sleep.ts';

export function buildSdkV2Server(): McpServer {
  const server = new McpServer({ name: 'bench', version: '1.0.0' });
  server.registerTool('echo', { inputSchema: z.object({ text: z.string() }) }, ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  server.registerTool(
    'add',
    { inputSchema: z.object({ a: z.number(), b: z.number() }) },
    (args) => ({
      content: [{ type: 'text', text: String(args.a + args.b) }],
    }),
  );
  server.registerTool(
    'sleep',
    { inputSchema: z.object({ ms: z.number() }) },
    async ({ ms }, ctx) => {
      await sleepFor(ms, ctx.mcpReq.signal);
      return { content: [{ type: 'text', text: `slept ${ms} ms` }] };
    },
  );
  return server;
}
