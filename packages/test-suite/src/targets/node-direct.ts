import { serve } from '@edge-mcp/adapters/node';
import { HANDLE } from '@edge-mcp/core/adapter';
import { createSuiteApp, type FixtureKind, memorySink } from '../fixture.ts';
import { inProcessTarget } from './node.ts';
import type { Target } from './types.ts';

/**
 * Node with the core handler served directly (its `HANDLE` fast entry: a light request in, plain
 * replies written as they are), as `serve(handler)` does. `/health` and `/__log` are answered
 * beside it without Hono, so every MCP request takes the fast path.
 */
export async function nodeDirectTarget(fixture: FixtureKind = 'suite'): Promise<Target> {
  const sink = memorySink();
  const { handler } = createSuiteApp('node', fixture, { disconnectGraceMs: 30_000 }, sink);
  const json = (body: unknown) => ({
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const server = await serve(
    {
      fetch: (request) => handler.fetch(request),
      [HANDLE]: async (request) => {
        const path = new URL(request.url).pathname;
        if (path === '/health')
          return json({ ok: !handler.closed, runtime: 'node', ...handler.stats() });
        if (path === '/__log') return json(await sink.read());
        return handler[HANDLE](request);
      },
      close: () => handler.close(),
    },
    { port: 0, hostname: '127.0.0.1', shutdownSignals: false },
  );
  return inProcessTarget('node-direct', server);
}
