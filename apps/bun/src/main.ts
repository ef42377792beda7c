/**
 * `pnpm start`: the example MCP server on Bun at http://127.0.0.1:8787/mcp.
 * PORT and HOST change the address; ALLOWED_HOSTS (comma-separated) lists extra host names the
 * server may be reached under (by default only loopback names pass the DNS-rebinding check).
 */
import { serve } from '@edge-mcp/adapters/bun';
import { createMcpHandler } from '@edge-mcp/core';
import {
  createExampleApp,
  createExampleServer,
  requestLogger,
  sessionLogger,
} from '@edge-mcp/example';

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

const handler = createMcpHandler(createExampleServer(), {
  allowedHosts: process.env.ALLOWED_HOSTS?.split(',').filter(Boolean) ?? [],
  onRequest: requestLogger(log),
  onSessionOpen: sessionLogger(log, 'session-open'),
  onSessionClose: sessionLogger(log, 'session-close'),
});
const app = createExampleApp(handler, 'bun');

// PORT and HOST are read by the adapter (defaults 8787 and 127.0.0.1); SIGINT/SIGTERM shut down
// gracefully, after which the process exits by itself.
const server = await serve({
  fetch: app.fetch,
  // Told by serve() on SIGINT/SIGTERM (or close()): say so, then end every call and stream.
  close: async () => {
    const { inFlight, sessions, openStreams } = handler.stats();
    log(
      `edge-mcp example shutting down (${inFlight} in flight, ${sessions} sessions, ${openStreams} open streams)`,
    );
    await handler.close();
    log('edge-mcp example stopped');
  },
});
// Where it really listens: a wildcard bind (HOST=0.0.0.0) is every interface, reached from this
// machine through loopback (serve() has warned about it on stderr).
const where =
  server.url === server.localUrl
    ? `${server.url}/mcp (health: ${server.url}/health)`
    : `${server.url}/mcp, all interfaces (from this machine: ${server.localUrl}/mcp, health: ${server.localUrl}/health)`;
console.error(`edge-mcp example serving ${where}`);
