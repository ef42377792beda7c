/**
 * What the suite's entries (`src/entries/{node,deno,bun}.ts`) add on Redis (`REDIS_URL`, or a
 * sharded cluster's `REDIS_CLUSTER_NODES`): the
 * example's Redis options (sessions, events, bus, tasks, the shared `requestState` secret), and
 * two test-only routes a cluster test aims at one instance with: `GET /__cluster` (its tag,
 * whether Redis is reachable, its counters) and `POST /__close-all` (the operator's
 * `closeAll()`, from this instance, answering how many sessions it ended).
 */
import type { EnvReader } from '@edge-mcp/example-server/example';
import type { ExampleCluster } from '@edge-mcp/example-server/example/redis';
import type { Hono } from 'hono';

/**
 * The example's cluster when `REDIS_URL` or `REDIS_CLUSTER_NODES` is set (node-redis is loaded
 * only then), else undefined.
 */
export async function suiteCluster(env: EnvReader): Promise<ExampleCluster | undefined> {
  if (!env('REDIS_URL') && !env('REDIS_CLUSTER_NODES')) return undefined;
  const { exampleCluster } = await import('@edge-mcp/example-server/example/redis');
  return exampleCluster(env, (line) => console.error(line));
}

/** Mounts `/__cluster` and `/__close-all` (nothing without a cluster). */
export function clusterRoutes(app: Hono, redis: ExampleCluster | undefined): void {
  if (!redis) return;
  const { cluster } = redis;
  app.get('/__cluster', (c) =>
    c.json({ instance: cluster.instance, available: cluster.available, ...cluster.stats() }),
  );
  app.post('/__close-all', async (c) => c.json({ closed: await cluster.closeAll() }));
}
