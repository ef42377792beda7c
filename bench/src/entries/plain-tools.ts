/**
 * The bench's three tools (`echo`, `add`, `sleep`) described with plain JSON Schema, so that no
 * schema library is bundled: the start-up target without zod and the Worker whose deployed bundle
 * is measured. Web APIs only.
 */
import { McpServer } from '@edge-mcp/core';
import { sleepFor } from './sleep.ts';

/** The bench server's name and version, the same for every edge-mcp target. */
export const SERVER_INFO = { name: 'bench', version: '1.0.0' };

const object = (properties: Record<string, { type: string }>) => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
});

export function createPlainServer(): McpServer {
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
    const ms = Number(args.ms);
    await sleepFor(ms, ctx.signal);
    return `slept ${ms} ms`;
  });
  return server;
}
