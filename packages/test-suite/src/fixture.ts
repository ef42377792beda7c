import { createFixtureServer } from '@edge-mcp/conformance';
import {
  createMcpHandler,
  type McpHandler,
  type McpHandlerOptions,
  type McpServer,
} from '@edge-mcp/core';
import { createExampleApp, createExampleServer } from '@edge-mcp/example';
import type { Hono } from 'hono';
import * as z from 'zod';

/** Which server a target serves: the suite's (the example plus test hooks) or the conformance fixture. */
export type FixtureKind = 'suite' | 'conformance';

/** Where the request/session log goes; in memory by default, a Durable Object on workerd. */
export interface LogSink {
  push(line: Record<string, unknown>): void;
  read(): Promise<Array<Record<string, unknown>>>;
}

export function memorySink(): LogSink {
  const lines: Array<Record<string, unknown>> = [];
  return { push: (line) => lines.push(line), read: async () => lines };
}

/** The server of a fixture kind: the example plus a `touch` tool, or the conformance fixture. */
export function fixtureServer(kind: FixtureKind): McpServer {
  if (kind === 'conformance') return createFixtureServer();
  const server = createExampleServer();
  server.tool('touch', { description: 'Announces a tools/list change (test hook)' }, () => {
    server.notifyListChanged('tools');
    return 'touched';
  });
  server.tool(
    'poke',
    {
      description: 'Announces an update of a resource (test hook)',
      inputSchema: z.object({ uri: z.string() }),
    },
    ({ uri }) => {
      server.notifyResourceUpdated(uri);
      return 'poked';
    },
  );
  server.tool(
    'say',
    {
      description: 'Logs one message at a level (test hook)',
      inputSchema: z.object({ level: z.enum(['debug', 'info', 'error']) }),
    },
    ({ level }, ctx) => {
      ctx.log(level, `said at ${level}`);
      return 'said';
    },
  );
  server.tool(
    'flood',
    {
      description: 'Sends count progress notifications (test hook)',
      inputSchema: z.object({ count: z.number() }),
    },
    ({ count }, ctx) => {
      for (let i = 1; i <= count; i++)
        ctx.progress(i, count, `step ${i} of a long stream that fills the event log`);
      return `flooded ${count}`;
    },
  );
  return server;
}

/** Handler hooks that write the request and session log the suite asserts on. */
export function logHooks(
  sink: LogSink,
): Pick<McpHandlerOptions, 'onRequest' | 'onSessionOpen' | 'onSessionClose'> {
  return {
    onRequest: (event) => sink.push({ kind: 'request', ...event }),
    onSessionOpen: (event) => sink.push({ kind: 'session-open', ...event, clientInfo: undefined }),
    onSessionClose: (event) =>
      sink.push({ kind: 'session-close', ...event, clientInfo: undefined }),
  };
}

/**
 * The app every runtime serves for the shared suite: the fixture server mounted in the example's
 * Hono app, plus `/__log` exposing the log.
 */
export function createSuiteApp(
  runtime: string,
  kind: FixtureKind,
  options: McpHandlerOptions = {},
  sink: LogSink = memorySink(),
): { app: Hono; handler: McpHandler } {
  const handler = createMcpHandler(fixtureServer(kind), {
    requestState: { secret: 'edge-mcp-test-suite' },
    ...options,
    ...logHooks(sink),
  });
  const app = createExampleApp(handler, runtime);
  app.get('/__log', async (c) => c.json(await sink.read()));
  return { app, handler };
}
