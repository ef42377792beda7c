/**
 * The suite's app on Node as a child process: `node --import tsx src/entries/node.ts` with PORT
 * (and FIXTURE, GRACE_MS; with REDIS_URL, one instance of a cluster on that Redis).
 */
import { serve } from '@edge-mcp/adapters/node';
import { clusterRoutes, suiteCluster } from '../cluster-entry.ts';
import { createSuiteApp, deployOptions, type FixtureKind, suiteRateLimit } from '../fixture.ts';

const redis = await suiteCluster((name) => process.env[name]);
const { app, handler } = createSuiteApp('node', (process.env.FIXTURE ?? 'suite') as FixtureKind, {
  disconnectGraceMs: Number(process.env.GRACE_MS ?? 30_000),
  ...deployOptions((name) => process.env[name]),
  ...redis?.options,
  // A cluster's instances take from the same buckets.
  ...(redis ? { rateLimit: suiteRateLimit(redis.cluster.rateLimits) } : {}),
});
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
    port: Number(process.env.PORT ?? 8787),
    hostname: '127.0.0.1',
    graceMs: Number(process.env.DRAIN_MS ?? 0),
  },
);
console.error(`listening ${server.url}${redis ? ` as ${redis.cluster.instance}` : ''}`);
