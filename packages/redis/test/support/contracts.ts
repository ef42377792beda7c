/**
 * The test kit's store contracts and cluster scenarios wired to this package, for one primary
 * (`url`) or a cluster's seed nodes: `store-contract.test.ts` and `cluster-scenarios.test.ts`
 * run them on a redis-server, `sharded.test.ts` on a Redis Cluster.
 */
import { createMcpHandler, McpServer } from '@edge-mcp/core';
import { CONTRACT_TOOLS, type SessionStoreTarget } from '@edge-mcp/test-kit';
import { type ClusterTarget, clusterScenarios } from '@edge-mcp/test-kit/cluster';
import { redisBackend } from '../../src/backend.ts';
import type { RedisBackendOptions } from '../../src/options.ts';
import { namespace } from '../helpers.ts';
import { type Node, startNodes } from './handlers.ts';

type Where = () => string | readonly string[];

/** `url` (one primary) or `nodes` (a cluster) for `redisBackend`. */
export function reach(
  where: string | readonly string[],
): Pick<RedisBackendOptions, 'url' | 'nodes'> {
  return typeof where === 'string' ? { url: where } : { nodes: where };
}

/** The session-store contract's target: a "store" is a namespace, reopened by another backend. */
export function sessionStoreTarget(
  where: Where,
  extra: Partial<RedisBackendOptions> = {},
): SessionStoreTarget<string> {
  return {
    shared: true,
    store: () => namespace(),
    reopen: (ns) => ns,
    async handler(ns, options) {
      const backend = await redisBackend({
        ...reach(where()),
        namespace: ns,
        idleTimeoutMs: options.idleTimeoutMs,
        heartbeatMs: 100,
        ...extra,
      });
      const server = new McpServer({ name: 'store-contract', version: '1.0.0' });
      for (const [name, handler] of CONTRACT_TOOLS) server.tool(name, {}, handler);
      return createMcpHandler(server, {
        ...backend.handlerOptions(false),
        onSessionClose: (event) => options.onSessionClose(String(event.reason)),
      });
    },
  };
}

/** The kit's cluster scenarios on three handlers of one namespace. */
export function redisClusterScenarios(where: Where): void {
  let last: Node | undefined;
  const target: ClusterTarget = {
    async start(count, options) {
      const nodes = await startNodes(where(), { count, options });
      last = nodes.at(-1);
      return nodes;
    },
    async closeAll(node, reason) {
      await (node as Node).cluster.closeAll(reason);
    },
    async storedMessages(session) {
      // The last instance is never the one a scenario stops.
      const { connection, keys } = (last as Node).context;
      const stored = (await connection.command([
        'XRANGE',
        keys.events(session),
        '-',
        '+',
      ])) as Array<[string, string[]]>;
      return stored.flatMap(([, fields]) => fields);
    },
    received: (node) => (node as Node).cluster.stats().received,
  };
  clusterScenarios(target);
}
