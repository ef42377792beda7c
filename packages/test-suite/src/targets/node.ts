import { type NodeServer, serve } from '@edge-mcp/adapters/node';
import { createSuiteApp, type FixtureKind } from '../fixture.ts';
import type { LogLine, Target, TargetCaps } from './types.ts';

export const NODE_CAPS: TargetCaps = {
  sessions: true,
  shutdown: 'in-process',
  disconnectBoundMs: 100,
};

/** Node in-process: the adapter serves on a free port inside the test runner. */
export async function nodeTarget(fixture: FixtureKind = 'suite'): Promise<Target> {
  const { app, handler } = createSuiteApp('node', fixture, { disconnectGraceMs: 30_000 });
  const server = await serve(
    { fetch: app.fetch, close: () => handler.close() },
    { port: 0, hostname: '127.0.0.1', shutdownSignals: false },
  );
  return inProcessTarget('node', server);
}

/** A target for a server running inside the test runner (the Node targets). */
export function inProcessTarget(name: string, server: NodeServer): Target {
  return {
    name,
    url: server.url,
    mcpUrl: `${server.url}/mcp`,
    caps: NODE_CAPS,
    log: async () => (await (await fetch(`${server.url}/__log`)).json()) as LogLine[],
    async shutdown() {
      await server.close();
      return { code: null };
    },
    stop: () => server.close(),
  };
}
