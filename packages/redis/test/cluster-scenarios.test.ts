/**
 * The test kit's cluster scenarios on Redis: three handlers, each with its own `redisBackend()` on
 * one namespace of a real redis-server (the same scenarios run on the core's memory double). What
 * only Redis shows is in streams.test.ts, stopping.test.ts and cluster-events.test.ts.
 */
import { clusterScenarios } from '@edge-mcp/test-kit/cluster';
import { useRedis } from './helpers.ts';
import { type Node, startNodes } from './support/handlers.ts';

const redis = useRedis();
let last: Node | undefined;

clusterScenarios({
  async start(count, options) {
    const nodes = await startNodes(redis().url, { count, options });
    last = nodes.at(-1);
    return nodes;
  },
  async closeAll(node, reason) {
    await (node as Node).cluster.closeAll(reason);
  },
  async storedMessages(session) {
    // The last instance is never the one a scenario stops.
    const { connection, keys } = (last as Node).context;
    const stored = (await connection.command(['XRANGE', keys.events(session), '-', '+'])) as Array<
      [string, string[]]
    >;
    return stored.flatMap(([, fields]) => fields);
  },
  received: (node) => (node as Node).cluster.stats().received,
});
