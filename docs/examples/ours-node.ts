import { serve } from '@edge-mcp/adapters/node';
import { createMcpHandler } from '@edge-mcp/core';
import { SessionManager } from '@edge-mcp/core/sessions';
import { createNotesServer } from './ours-server.ts';

// One instance, built once: registrations are compiled once and shared by every request.
const handler = createMcpHandler(createNotesServer(), {
  // The defaults, spelled out: legacy clients get an Mcp-Session-Id, sessions live in memory.
  sessions: new SessionManager({ idleTimeoutMs: 10 * 60_000, maxSessions: 10_000 }),
  onSessionClose: (event) => console.error('session closed', event.sessionId, event.reason),
});

// Serves http://127.0.0.1:8787/mcp (the `path` option); SIGINT/SIGTERM shut down gracefully.
const server = await serve(handler, { port: 8787 });
console.error(`MCP server on ${server.url}/mcp`);
