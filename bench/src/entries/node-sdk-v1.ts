/**
 * Target: `@modelcontextprotocol/sdk` 1.32 (McpServer + StreamableHTTPServerTransport on
 * `node:http`), JSON responses like the other targets. MODE=stateless is the SDK's documented
 * stateless pattern (a server and transport per request), MODE=session its session map.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { HOST, MODE, nodeSideChannel, PORT, serveSideChannel } from './node-env.ts';
import { registerSdkV1Tools } from './sdk-v1-tools.ts';

function build(): McpServer {
  return registerSdkV1Tools(new McpServer({ name: 'bench', version: '1.0.0' }));
}

const sessions = new Map<string, StreamableHTTPServerTransport>();

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString());
}

async function stateless(req: IncomingMessage, res: ServerResponse, body: unknown) {
  const server = build();
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

async function session(req: IncomingMessage, res: ServerResponse, body: unknown) {
  const id = req.headers['mcp-session-id'];
  const existing = typeof id === 'string' ? sessions.get(id) : undefined;
  if (existing) return existing.handleRequest(req, res, body);
  if (id !== undefined || (body as { method?: string })?.method !== 'initialize') {
    res.writeHead(id === undefined ? 400 : 404).end();
    return;
  }
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    enableJsonResponse: true,
    onsessioninitialized: (sessionId) => {
      sessions.set(sessionId, transport);
    },
  });
  transport.onclose = () => {
    if (transport.sessionId) sessions.delete(transport.sessionId);
  };
  await build().connect(transport);
  await transport.handleRequest(req, res, body);
}

const server = createServer((req, res) => {
  readJson(req)
    .then((body) => (MODE === 'session' ? session(req, res, body) : stateless(req, res, body)))
    .catch((error) => {
      console.error(error);
      if (!res.headersSent) res.writeHead(500).end();
    });
});
await new Promise<void>((resolve) => server.listen(PORT, HOST, resolve));
await serveSideChannel(nodeSideChannel(() => ({ sessions: sessions.size })));
