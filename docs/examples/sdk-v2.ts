import { createMcpHandler, McpServer, ResourceTemplate } from '@modelcontextprotocol/server';
import * as z from 'zod';

const NOTES = new Map([
  ['a', 'Buy milk'],
  ['b', 'Call Ada'],
]);

/** SDK v2's createMcpHandler takes a factory: it builds a server for every request. */
function createNotesServer(): McpServer {
  const server = new McpServer({ name: 'notes', version: '1.0.0' });

  server.registerTool(
    'add',
    {
      description: 'Adds two numbers',
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      outputSchema: z.object({ sum: z.number() }),
    },
    ({ a, b }) => ({
      content: [{ type: 'text', text: String(a + b) }],
      structuredContent: { sum: a + b },
    }),
  );

  server.registerTool(
    'sleep',
    { description: 'Waits, then answers', inputSchema: z.object({ ms: z.number() }) },
    async ({ ms }, ctx) => {
      await sleep(ms, ctx.mcpReq.signal); // the request's signal is under ctx.mcpReq
      return { content: [{ type: 'text', text: `slept ${ms} ms` }] };
    },
  );

  server.registerResource(
    'note',
    new ResourceTemplate('notes://{id}', {
      list: undefined,
      complete: { id: (prefix) => [...NOTES.keys()].filter((id) => id.startsWith(prefix)) },
    }),
    { mimeType: 'text/plain' },
    (uri, { id }) => {
      const note = NOTES.get(String(id));
      if (note === undefined) throw new Error(`Resource not found: ${uri.href}`);
      return { contents: [{ uri: uri.href, mimeType: 'text/plain', text: note }] };
    },
  );

  server.registerPrompt(
    'summarize',
    { description: 'Summarize a note', argsSchema: z.object({ id: z.string() }) },
    ({ id }) => ({
      messages: [
        {
          role: 'user',
          content: { type: 'text', text: `Summarize this note: ${NOTES.get(id) ?? '(none)'}` },
        },
      ],
    }),
  );

  return server;
}

// 2026-07-28, and the legacy revisions answered statelessly (legacy: 'stateless', the default):
// no Mcp-Session-Id, no GET stream, so no `count` tool here.
const handler = createMcpHandler(() => createNotesServer());

// A fetch handler: a Worker's default export, Deno.serve(handler.fetch), Bun.serve(...).
export default { fetch: (request: Request) => handler.fetch(request) };

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
