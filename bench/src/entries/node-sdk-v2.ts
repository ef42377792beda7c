/**
 * Target: `@modelcontextprotocol/server` 2.4 on Node through `@hono/node-server` (the SDK's own
 * `@modelcontextprotocol/node` is not installed). MODE=handler: `createMcpHandler(factory)` and
 * its stateless legacy fallback; MODE=session: legacy sessions the v1 way, which v2 still ships.
 */
import { randomUUID } from 'node:crypto';
import { serve } from '@hono/node-server';
import {
  createMcpHandler,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { HOST, MODE, nodeSideChannel, PORT, serveSideChannel } from './node-env.ts';
import { buildSdkV2Server as build } from './sdk-v2-tools.ts';

const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();

async function session(request: Request): Promise<Response> {
  const id = request.headers.get('mcp-session-id');
  const existing = id === null ? undefined : sessions.get(id);
  if (existing) return existing.handleRequest(request);
  const body = (await request.json()) as { method?: string };
  if (id !== null || body?.method !== 'initialize') return new Response(null, { status: 400 });
  const transport = new WebStandardStreamableHTTPServerTransport({
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
  return transport.handleRequest(request, { parsedBody: body });
}

const handler = createMcpHandler(() => build());
const fetch = MODE === 'session' ? session : (request: Request) => handler.fetch(request);
await new Promise<void>((resolve) => {
  serve({ fetch, port: PORT, hostname: HOST }, () => resolve());
});
await serveSideChannel(nodeSideChannel(() => ({ sessions: sessions.size })));
