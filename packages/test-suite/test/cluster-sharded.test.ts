/**
 * The shared suite, unchanged, against instances sharing a sharded Redis Cluster (issue 26: 3
 * primaries with one replica each) behind a round-robin proxy: three Node instances (with the
 * authorization group, as on one Redis), then a Node, a Deno and a Bun instance. One session's requests cross instances and its keys live on one
 * shard while other sessions' live on the others.
 */
import { defineAuthSuite, defineSuite } from '../src/suite/define.ts';
import { clusterCaps, clusterTarget } from '../src/targets/cluster.ts';

const NODES = ['node', 'node', 'node'] as const;
const MIXED = ['node', 'deno', 'bun'] as const;

defineSuite('a cluster of 3 Node instances on a Redis Cluster', clusterCaps(NODES), () =>
  clusterTarget(NODES, { sharded: true }),
);
defineAuthSuite('a cluster of 3 Node instances on a Redis Cluster', () =>
  clusterTarget(NODES, { fixture: 'auth', sharded: true }),
);
defineSuite('a cluster of Node + Deno + Bun on a Redis Cluster', clusterCaps(MIXED), () =>
  clusterTarget(MIXED, { sharded: true }),
);
