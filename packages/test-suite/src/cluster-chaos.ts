/**
 * What an operator (or a cloud provider) does to a sharded Redis Cluster while it serves, as the
 * chaos run of issue 26 does it under steady traffic: a manual failover (`CLUSTER FAILOVER` on a
 * replica), a primary SIGKILLed until its replica is promoted (then started again, as a replica),
 * and a live slot migration (`redis-cli --cluster reshard`). Each step waits until every node
 * that answers agrees the cluster is whole again.
 */
import { until } from '@edge-mcp/test-kit';
import type { ClusterNode, RedisCluster } from '@edge-mcp/test-kit/node';

export type ChaosStep = 'failover' | 'kill-primary' | 'reshard';

/** What one step did and how long the cluster took to be whole again. */
export interface ChaosDone {
  readonly step: ChaosStep;
  readonly ms: number;
  readonly detail: string;
}

async function nodesBy(cluster: RedisCluster, role: 'primary' | 'replica'): Promise<ClusterNode[]> {
  const found: ClusterNode[] = [];
  for (const node of cluster.nodes)
    if ((await node.role().catch(() => undefined)) === role) found.push(node);
  return found;
}

/** The node replicating `primary` now. */
async function replicaOf(cluster: RedisCluster, primary: ClusterNode): Promise<ClusterNode> {
  const id = (await cluster.cli(primary.port, 'CLUSTER', 'MYID')).trim();
  const line = await cluster.cli(primary.port, 'CLUSTER', 'REPLICAS', id);
  const port = Number(/:(\d+)@/.exec(line)?.[1]);
  const replica = cluster.nodes.find((node) => node.port === port);
  if (!replica) throw new Error(`no replica of ${primary.port}: ${line}`);
  return replica;
}

/** Runs one step; `turn` picks which node (steps rotate over the shards). */
export async function chaosStep(
  cluster: RedisCluster,
  step: ChaosStep,
  turn: number,
): Promise<ChaosDone> {
  const started = performance.now();
  const done = (detail: string): ChaosDone => ({
    step,
    ms: Math.round(performance.now() - started),
    detail,
  });
  switch (step) {
    case 'failover': {
      const replicas = await nodesBy(cluster, 'replica');
      const replica = replicas[turn % replicas.length];
      if (!replica) throw new Error('no replica to fail over to');
      await cluster.failover(replica);
      return done(`replica ${replica.port} took over`);
    }
    case 'kill-primary': {
      const primaries = await nodesBy(cluster, 'primary');
      const victim = primaries[turn % primaries.length];
      if (!victim) throw new Error('no primary to kill');
      const replica = await replicaOf(cluster, victim);
      await victim.server.kill();
      // Its replica is promoted once the others agree it failed (`cluster-node-timeout`).
      await until(
        async () => (await replica.role().catch(() => 'replica')) === 'primary',
        `replica ${replica.port} to be promoted`,
        60_000,
        50,
      );
      await cluster.settled(60_000);
      const promoted = done(`primary ${victim.port} SIGKILLed, its replica promoted`);
      await victim.server.start();
      await cluster.settled(60_000);
      return promoted;
    }
    case 'reshard': {
      const primaries = await nodesBy(cluster, 'primary');
      const from = primaries[turn % primaries.length];
      const to = primaries[(turn + 1) % primaries.length];
      if (!from || !to) throw new Error('not two primaries to reshard between');
      await cluster.reshard(from, to, 1024);
      return done(`1024 slots moved from ${from.port} to ${to.port}`);
    }
  }
}
