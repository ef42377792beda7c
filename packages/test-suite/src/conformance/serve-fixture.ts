import { type NodeServer, serve } from '@edge-mcp/adapters/node';
import { createMcpHandler, type McpHandler, type McpHandlerOptions } from '@edge-mcp/core';
import { createFixtureServer } from './fixture-server.ts';

/** Serves the fixture at `<url>/mcp` on 127.0.0.1 (port 0 picks a free one), with its handler. */
export async function serveFixture(
  port = 0,
  options: McpHandlerOptions = {},
): Promise<NodeServer & { mcpUrl: string; handler: McpHandler }> {
  const handler = createMcpHandler(createFixtureServer(), {
    requestState: { secret: 'conformance-fixture' },
    ...options,
  });
  const listening = await serve(
    {
      fetch: (request) =>
        new URL(request.url).pathname === '/mcp'
          ? handler.fetch(request)
          : Promise.resolve(new Response('Not found', { status: 404 })),
      close: () => handler.close(),
    },
    { port, hostname: '127.0.0.1', shutdownSignals: false },
  );
  return Object.assign(listening, { mcpUrl: `${listening.url}/mcp`, handler });
}

// `tsx src/serve-fixture.ts` serves it on PORT (default 8788) for running single scenarios by hand.
if (import.meta.url === `file://${process.argv[1]}`) {
  const server = await serveFixture(Number(process.env.PORT ?? 8788));
  console.error(`conformance fixture on ${server.mcpUrl}`);
}
