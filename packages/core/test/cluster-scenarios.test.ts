/**
 * The test kit's cluster scenarios on the core's memory cluster double (the same scenarios run on
 * Redis in packages/redis/test/cluster-scenarios.test.ts); what only the double can show is in
 * cluster-sessions.test.ts and cluster-events.test.ts.
 */
import { clusterScenarios } from '@edge-mcp/test-kit/cluster';
import { afterEach } from 'vitest';
import { type Node, startCluster } from './support/cluster-setup.ts';
import type { MemoryCluster } from './support/memory-cluster.ts';

let running: Node[] = [];
let world: MemoryCluster | undefined;
afterEach(async () => {
  await Promise.all(running.map((node) => node.stop()));
  running = [];
});

clusterScenarios({
  async start(count, options) {
    const started = startCluster(count, options);
    world = started.world;
    running = started.nodes;
    return started.nodes;
  },
  async closeAll(node) {
    await (node as Node).instance.sessions.closeAll('session-deleted');
  },
  async storedMessages(session) {
    return world?.events.messages(session) ?? [];
  },
  // The double counts what it sends, not per receiver: events forwarded to a relay.
  received: () => world?.sent.get('ev') ?? 0,
});
