import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';

const NOTES = new Map([
  ['a', 'Buy milk'],
  ['b', 'Call Ada'],
]);

/** SDK v1 connects one server to one transport: the session map below builds one per session. */
function createNotesServer(): McpServer {
  const server = new McpServer({ name: 'notes', version: '1.0.0' });

  server.registerTool(
    'add',
    {
      description: 'Adds two numbers',
      inputSchema: { a: z.number(), b: z.number() },
      outputSchema: { sum: z.number() },
    },
    ({ a, b }) => ({
      content: [{ type: 'text', text: String(a + b) }],
      structuredContent: { sum: a + b },
    }),
  );

  server.registerTool(
    'sleep',
    { description: 'Waits, then answers', inputSchema: { ms: z.number() } },
    async ({ ms }, extra) => {
      await sleep(ms, extra.signal); // extra.signal.reason: no typed reason
      return { content: [{ type: 'text', text: `slept ${ms} ms` }] };
    },
  );

  let count = 0; // one server per session, so its closure is the session's state
  server.registerTool('count', { description: 'Counts the calls of this session' }, () => ({
    content: [{ type: 'text', text: String(++count) }],
  }));

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
    { description: 'Summarize a note', argsSchema: { id: z.string() } },
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

// Sessions are the application's: a map from Mcp-Session-Id to its transport.
const transports = new Map<string, StreamableHTTPServerTransport>();

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString());
}

const httpServer = createServer(async (req, res) => {
  if (new URL(req.url ?? '/', 'http://localhost').pathname !== '/mcp') {
    res.writeHead(404).end();
    return;
  }
  const body = req.method === 'POST' ? await readJson(req) : undefined;
  const id = req.headers['mcp-session-id'];
  let transport = typeof id === 'string' ? transports.get(id) : undefined;
  if (!transport && id === undefined && isInitializeRequest(body)) {
    const created = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => {
        transports.set(sessionId, created);
      },
    });
    created.onclose = () => {
      if (created.sessionId) transports.delete(created.sessionId);
    };
    await createNotesServer().connect(created);
    transport = created;
  }
  if (!transport) {
    res.writeHead(id === undefined ? 400 : 404).end();
    return;
  }
  await transport.handleRequest(req, res, body);
});
httpServer.listen(8787, '127.0.0.1');
// Shutdown is the application's too: close every transport, then the HTTP server.
process.once('SIGTERM', () => {
  for (const transport of transports.values()) void transport.close();
  httpServer.close();
});

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
