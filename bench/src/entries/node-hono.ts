/**
 * Target: a Hono app as a real one is, served by the edge-mcp Node adapter (`serve({ fetch:
 * app.fetch })`, as `pnpm start` does): `logger()` on every route, `cors()` and `bodyLimit()` on
 * `/mcp`, a `/health` route next to it. MODE=edge mounts edge-mcp (`app.all('/mcp',
 * mcp(handler))`); MODE=bare answers the same JSON as edge-mcp's modern echo from a bare route (the
 * ceiling of this app). The logger prints into a counter, not to stdout: a line per request
 * piped to the bench would load the load generator's process, for both modes alike.
 */
import { mcp } from '@edge-mcp/adapters/hono';
import { serve } from '@edge-mcp/adapters/node';
import { createMcpHandler, type McpHandler } from '@edge-mcp/core';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { logger } from 'hono/logger';
import { bareResult } from './bare-result.ts';
import { createEdgeServer } from './edge-tools.ts';
import { benchSessions, HOST, MODE, nodeSideChannel, PORT, serveSideChannel } from './node-env.ts';

let logged = 0;
let handler: McpHandler | undefined;
const side = nodeSideChannel(() => ({ ...handler?.stats(), logged }));
const app = new Hono();
app.use(
  logger(() => {
    logged++;
  }),
);
app.use('/mcp', cors({ origin: '*', exposeHeaders: ['Mcp-Session-Id'] }));
app.use('/mcp', bodyLimit({ maxSize: 1024 * 1024 }));
app.get('/health', (c) => c.json({ ok: true }));
if (MODE === 'bare') {
  app.post('/mcp', async (c) =>
    c.body(bareResult(await c.req.text()), 200, { 'content-type': 'application/json' }),
  );
} else {
  handler = createMcpHandler(createEdgeServer(side.abort), {
    sessions: benchSessions(),
  });
  app.all('/mcp', mcp(handler));
}
// A graceful shutdown (SIGTERM) closes the handler, then the side channel, so the process exits.
const stopped = new AbortController();
const close = async () => {
  await handler?.close();
  stopped.abort();
};
await serve({ fetch: app.fetch, close }, { port: PORT, hostname: HOST });
await serveSideChannel(side, stopped.signal);
