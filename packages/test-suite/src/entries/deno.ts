/**
 * The suite's app on Deno: `deno run -A src/entries/deno.ts` with PORT (and FIXTURE, GRACE_MS, DRAIN_MS, KEEP_ALIVE_MS, MCP_TRUST_PROXY, ALLOWED_HOSTS;
 * with REDIS_URL, one instance of a cluster on that Redis).
 */
import { serve } from '@edge-mcp/adapters/deno';
import { clusterRoutes, suiteCluster } from '../cluster-entry.ts';
import { createSuiteApp, deployOptions, type FixtureKind, suiteRateLimit } from '../fixture.ts';

declare const Deno: { env: { get(name: string): string | undefined } };

const redis = await suiteCluster((name) => Deno.env.get(name));
const { app, handler } = createSuiteApp(
  'deno',
  (Deno.env.get('FIXTURE') ?? 'suite') as FixtureKind,
  {
    // No streamAfterMs: on Deno the core picks the one it needs (1000) by itself.
    disconnectGraceMs: Number(Deno.env.get('GRACE_MS') ?? 30_000),
    ...deployOptions((name) => Deno.env.get(name)),
    ...redis?.options,
    // A cluster's instances take from the same buckets.
    ...(redis ? { rateLimit: suiteRateLimit(redis.cluster.rateLimits) } : {}),
  },
);
clusterRoutes(app, redis);
const server = await serve(
  {
    fetch: app.fetch,
    close: async (options) => {
      await handler.close(options);
      await redis?.close();
    },
  },
  {
    port: Number(Deno.env.get('PORT') ?? 8787),
    hostname: '127.0.0.1',
    graceMs: Number(Deno.env.get('DRAIN_MS') ?? 0),
  },
);
console.error(`listening ${server.url}${redis ? ` as ${redis.cluster.instance}` : ''}`);
