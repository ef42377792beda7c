/**
 * The shared suite, unchanged, against a Node, a Deno and a Bun instance sharing one Redis behind
 * a round-robin proxy (issue 15): one session's requests go Node → Deno → Bun → Node …
 */
import { defineSuite } from '../src/suite/define.ts';
import { clusterCaps, clusterTarget } from '../src/targets/cluster.ts';

const RUNTIMES = ['node', 'deno', 'bun'] as const;

defineSuite('a cluster of Node + Deno + Bun on Redis', clusterCaps(RUNTIMES), () =>
  clusterTarget(RUNTIMES),
);
