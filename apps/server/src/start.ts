/**
 * The example MCP server at http://127.0.0.1:8787/mcp, the same on every runtime: each entry
 * (node.ts, deno.ts, bun.ts) gives it the runtime's environment, exit and `serve()`.
 * PORT and HOST change the address; ALLOWED_HOSTS (comma-separated) lists extra host names the
 * server may be reached under (by default only loopback names pass the DNS-rebinding check).
 * MCP_AUTH_ISSUER (+ MCP_AUTH_JWKS_URL, MCP_RESOURCE_URL, MCP_AUTH_SCOPES) requires OAuth bearer
 * tokens; MCP_CORS_ORIGINS lets browsers on those origins call (see apps/server/src/example/options.ts).
 * REDIS_URL keeps the legacy sessions, their events and the tasks in Redis, shared with every other
 * instance on that Redis (see apps/server/src/example/redis.ts); without it everything stays here.
 */
import { createMcpHandler } from '@edge-mcp/core';
import {
  createExampleApp,
  createExampleServer,
  exampleOptions,
  requestLogger,
  sessionLogger,
} from './example/index.ts';

/** What the example needs of a runtime. */
export interface ExampleRuntime {
  name: 'node' | 'deno' | 'bun';
  env(name: string): string | undefined;
  exit(code: number): never;
  /** The adapter's `serve()`; SIGINT and SIGTERM end it gracefully (its default). */
  serve(
    entry: { fetch(request: Request): Response | Promise<Response>; close(): Promise<void> },
    options: { port: number; hostname: string },
  ): Promise<{ url: string; localUrl: string }>;
}

function log(line: string): void {
  console.error(line);
}

export async function startExample(runtime: ExampleRuntime): Promise<void> {
  const { env } = runtime;
  const port = Number(env('PORT') ?? 8787);
  const hostname = env('HOST') ?? '127.0.0.1';
  // Only with REDIS_URL: node-redis is not even loaded otherwise.
  const redis = env('REDIS_URL')
    ? await (await import('./example/redis.ts')).exampleCluster(env, log).catch((error: Error) => {
        log(`edge-mcp example: ${error.message}`);
        return runtime.exit(1);
      })
    : undefined;
  const handler = createMcpHandler(createExampleServer(), {
    ...exampleOptions(env, { host: hostname, port }),
    ...redis?.options,
    onRequest: requestLogger(log),
    onSessionOpen: sessionLogger(log, 'session-open'),
    onSessionClose: sessionLogger(log, 'session-close'),
  });
  const app = createExampleApp(handler, runtime.name);
  const server = await runtime.serve(
    {
      fetch: app.fetch,
      // Told by serve() on SIGINT/SIGTERM (or close()): say so, then end every call and stream.
      close: async () => {
        const { inFlight, sessions, openStreams } = handler.stats();
        log(
          `edge-mcp example shutting down (${inFlight} in flight, ${sessions} sessions, ${openStreams} open streams)`,
        );
        await handler.close();
        // This instance leaves the cluster; the sessions stay in Redis for the other instances.
        await redis?.close();
        log('edge-mcp example stopped');
      },
    },
    { port, hostname },
  );
  // Where it really listens: a wildcard bind (HOST=0.0.0.0) is every interface, reached from
  // this machine through loopback (serve() has warned about it on stderr).
  const where =
    server.url === server.localUrl
      ? `${server.url}/mcp (health: ${server.url}/health)`
      : `${server.url}/mcp, all interfaces (from this machine: ${server.localUrl}/mcp, health: ${server.localUrl}/health)`;
  if (redis) log(`sessions in Redis at ${redis.url} (instance ${redis.cluster.instance})`);
  log(`edge-mcp example serving ${where}`);
}
