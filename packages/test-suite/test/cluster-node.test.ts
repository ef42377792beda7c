/**
 * The shared suite, unchanged, against three Node instances sharing one Redis behind a
 * round-robin proxy (issue 15): consecutive requests of one session land on different instances,
 * so every legacy test crosses instances (a GET stream's list change raised elsewhere, a resume
 * relayed from the instance running the call, a cancel and a DELETE arriving at another one).
 * The authorization group too: a session stays its owner's on every instance.
 */
import { defineAuthSuite, defineSuite } from '../src/suite/define.ts';
import { clusterCaps, clusterTarget } from '../src/targets/cluster.ts';

const RUNTIMES = ['node', 'node', 'node'] as const;

defineSuite('a cluster of 3 Node instances on Redis', clusterCaps(RUNTIMES), () =>
  clusterTarget(RUNTIMES),
);
defineAuthSuite('a cluster of 3 Node instances on Redis', () =>
  clusterTarget(RUNTIMES, { fixture: 'auth' }),
);
