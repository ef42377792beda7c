/**
 * The example MCP server at http://127.0.0.1:8787/mcp, the same on every runtime: each entry
 * (node.ts, deno.ts, bun.ts) gives it the runtime's environment, exit and `serve()`.
 * PORT and HOST change the address; ALLOWED_HOSTS (comma-separated) lists extra host names the
 * server may be reached under (by default only loopback names pass the DNS-rebinding check).
 * MCP_AUTH_ISSUER (+ MCP_AUTH_JWKS_URL, MCP_RESOURCE_URL, MCP_AUTH_SCOPES) requires OAuth bearer
 * tokens; MCP_CORS_ORIGINS lets browsers on those origins call (see apps/server/src/example/options.ts).
 * MCP_TRUST_PROXY names the reverse proxies whose forwarded headers count (see options.ts);
 * MCP_DRAIN_MS gives calls in flight that long to finish on SIGTERM (rolling deploys: /readyz
 * turns 503 at once, new requests get 503 with Retry-After); without it the shutdown is prompt.
 * REDIS_URL keeps the legacy sessions, their events and the tasks in Redis, shared with every other
 * instance on that Redis, and REDIS_CLUSTER_NODES does the same on a sharded Redis Cluster (see
 * apps/server/src/example/redis.ts); without either everything stays here. With Redis,
 * MCP_TASKS_RUN=workers makes this instance queue its tasks for `pnpm start:worker` processes
 * rather than run them.
 */
import { createMcpHandler } from '@edge-mcp/core';
import {
  createExampleApp,
  createExampleServer,
  exampleOptions,
  requestLogger,
  sessionLogger,
  taskRunLogger,
} from './example/index.ts';

/** What the example needs of a runtime. */
export interface ExampleRuntime {
  name: 'node' | 'deno' | 'bun';
  env(name: string): string | undefined;
  exit(code: number): never;
  /** The adapter's `serve()`; SIGINT and SIGTERM end it gracefully (its default). */
  serve(
    entry: {
      fetch(request: Request): Response | Promise<Response>;
      close(options?: { graceMs?: number }): Promise<void>;
    },
    options: { port: number; hostname: string; graceMs: number },
  ): Promise<{ url: string; localUrl: string }>;
}

function log(line: string): void {
  console.error(line);
}

/** MCP_DRAIN_MS: a whole number of milliseconds, else no drain (said on stderr). */
function drainMs(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return 0;
  const ms = Number(value);
  if (Number.isInteger(ms) && ms >= 0) return ms;
  log(`edge-mcp example: MCP_DRAIN_MS=${value} is not a whole number of milliseconds; no drain`);
  return 0;
}

export async function startExample(runtime: ExampleRuntime): Promise<void> {
  const { env } = runtime;
  const port = Number(env('PORT') ?? 8787);
  const hostname = env('HOST') ?? '127.0.0.1';
  const graceMs = drainMs(env('MCP_DRAIN_MS'));
  // The resource identifier is the public URL tokens are issued for. Behind a proxy it is built
  // from the URL each client addressed, on the ALLOWED_HOSTS names; without them the default from
  // HOST:PORT is the internal address, which no client addresses.
  if (
    env('MCP_AUTH_ISSUER') &&
    env('MCP_TRUST_PROXY') &&
    !env('MCP_RESOURCE_URL') &&
    !env('ALLOWED_HOSTS')
  )
    log(
      'edge-mcp example: behind a proxy (MCP_TRUST_PROXY) set ALLOWED_HOSTS to the public names, or MCP_RESOURCE_URL to the public URL of /mcp; the default is this internal address',
    );
  // Only with REDIS_URL or REDIS_CLUSTER_NODES: node-redis is not even loaded otherwise.
  const redis =
    env('REDIS_URL') || env('REDIS_CLUSTER_NODES')
      ? await (await import('./example/redis.ts'))
          .exampleCluster(env, log)
          .catch((error: Error) => {
            log(`edge-mcp example: ${error.message}`);
            return runtime.exit(1);
          })
      : undefined;
  // MCP_TASKS_RUN=workers (with Redis): this instance only queues tasks; `pnpm start:worker`
  // processes run them.
  // Every task run is logged (which instance ran it, its attempt and fence).
  const run = redis && env('MCP_TASKS_RUN') === 'workers' ? 'workers' : 'here';
  const tasks = { tasks: { ...redis?.options.tasks, run, onRun: taskRunLogger(log) } as const };
  const handler = createMcpHandler(createExampleServer(), {
    ...exampleOptions(env, { host: hostname, port }),
    ...redis?.options,
    ...tasks,
    onRequest: requestLogger(log),
    onSessionOpen: sessionLogger(log, 'session-open'),
    onSessionClose: sessionLogger(log, 'session-close'),
  });
  const app = createExampleApp(handler, runtime.name);
  const server = await runtime.serve(
    {
      fetch: app.fetch,
      // Told by serve() on SIGINT/SIGTERM (or close()): say so, then end every call and stream.
      close: async (options) => {
        const { inFlight, sessions, openStreams } = handler.stats();
        const drain = options?.graceMs ? `, draining for up to ${options.graceMs} ms` : '';
        log(
          `edge-mcp example shutting down (${inFlight} in flight, ${sessions} sessions, ${openStreams} open streams${drain})`,
        );
        await handler.close(options);
        // This instance leaves the cluster; the sessions stay in Redis for the other instances.
        await redis?.close();
        log('edge-mcp example stopped');
      },
    },
    { port, hostname, graceMs },
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
