/**
 * Target: mcp-lite 0.10 (legacy revisions only, up to 2025-06-18) through `@hono/node-server`.
 * MODE=stateless: no session adapter; MODE=session: `InMemorySessionAdapter`. Its tool context
 * has no abort signal, so `sleep` cannot honour one.
 */
import { serve } from '@hono/node-server';
import { InMemorySessionAdapter, McpServer, StreamableHttpTransport } from 'mcp-lite';
import * as z from 'zod';
import { HOST, MODE, nodeSideChannel, PORT, serveSideChannel } from './node-env.ts';

const server = new McpServer({
  name: 'bench',
  version: '1.0.0',
  schemaAdapter: (schema) => z.toJSONSchema(schema as z.ZodType),
});
server.tool('echo', {
  inputSchema: z.object({ text: z.string() }),
  handler: ({ text }) => ({ content: [{ type: 'text', text }] }),
});
server.tool('add', {
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  handler: ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
});
server.tool('sleep', {
  inputSchema: z.object({ ms: z.number() }),
  handler: async ({ ms }) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return { content: [{ type: 'text', text: `slept ${ms} ms` }] };
  },
});

const transport = new StreamableHttpTransport(
  MODE === 'session'
    ? { sessionAdapter: new InMemorySessionAdapter({ maxEventBufferSize: 1024 }) }
    : {},
);
const fetch = transport.bind(server);
await new Promise<void>((resolve) => {
  serve({ fetch: (request: Request) => fetch(request), port: PORT, hostname: HOST }, () =>
    resolve(),
  );
});
await serveSideChannel(nodeSideChannel());
