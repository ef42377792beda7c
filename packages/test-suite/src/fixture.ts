import { createFixtureServer } from '@edge-mcp/conformance';
import {
  createMcpHandler,
  type McpHandler,
  type McpHandlerOptions,
  type McpServer,
} from '@edge-mcp/core';
import { createExampleApp, createExampleServer } from '@edge-mcp/example';
import type { Hono } from 'hono';

/** Which server a target serves: the suite's (the example plus test hooks) or the conformance fixture. */
export type FixtureKind = 'suite' | 'conformance';

/**
 * The app every runtime serves for the shared suite: the example server plus a `touch` tool that
 * announces a tools/list change (to drive GET-stream and listen tests), mounted with the example's
 * Hono app, and `/__log` exposing the request and session log the tests assert on.
 */
export function createSuiteApp(
  runtime: string,
  kind: FixtureKind,
  options: McpHandlerOptions = {},
): { app: Hono; handler: McpHandler } {
  const log: Array<Record<string, unknown>> = [];
  const server: McpServer = kind === 'conformance' ? createFixtureServer() : suiteServer();
  const handler = createMcpHandler(server, {
    requestState: { secret: 'edge-mcp-test-suite' },
    ...options,
    onRequest: (event) => log.push({ kind: 'request', ...event }),
    onSessionOpen: (event) => log.push({ kind: 'session-open', ...event, clientInfo: undefined }),
    onSessionClose: (event) => log.push({ kind: 'session-close', ...event, clientInfo: undefined }),
  });
  const app = createExampleApp(handler, runtime);
  app.get('/__log', (c) => c.json(log));
  return { app, handler };
}

function suiteServer(): McpServer {
  const server = createExampleServer();
  server.tool('touch', { description: 'Announces a tools/list change (test hook)' }, () => {
    server.notifyListChanged('tools');
    return 'touched';
  });
  return server;
}
