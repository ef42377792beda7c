/**
 * edge-mcp's start-up bundle without a schema library: the same three tools described with
 * plain JSON Schema (which the core passes through unvalidated-by-zod), so the start-up figure
 * can be split between edge-mcp itself and zod.
 */
import { serve } from '@edge-mcp/adapters';
import { createMcpHandler, McpServer } from '@edge-mcp/core';
import { SERVER_INFO } from '../entries/edge-tools.ts';
import { HOSTNAME, port } from './env.ts';

const object = (properties: Record<string, { type: string }>) => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
});
const server = new McpServer(SERVER_INFO);
server.tool('echo', { inputSchema: object({ text: { type: 'string' } }) }, (args) =>
  String(args.text),
);
server.tool(
  'add',
  { inputSchema: object({ a: { type: 'number' }, b: { type: 'number' } }) },
  (args) => String(Number(args.a) + Number(args.b)),
);
server.tool('sleep', { inputSchema: object({ ms: { type: 'number' } }) }, async (args, ctx) => {
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, Number(args.ms));
    ctx.signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
  });
  return `slept ${args.ms} ms`;
});
await serve(createMcpHandler(server), { port: port(), hostname: HOSTNAME });
