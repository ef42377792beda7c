/**
 * The targets of the measures besides throughput and start-up: legacy sessions (memory and
 * `initialize` per second), and the lifecycle probes (disconnect, shutdown, fairness).
 */
import type { TargetSpec } from './lib/spawn.ts';
import { atLeast, LEGACY, LITE, node } from './target-shapes.ts';
import type { Entry } from './target-types.ts';

/** Legacy sessions on Node: idle memory per session and `initialize` per second. */
export interface SessionTarget extends Entry {
  version: string;
}

export const SESSION_TARGETS: SessionTarget[] = [
  {
    id: 'node/bare-initialize',
    label: 'bare initialize (keeps nothing)',
    runtime: 'node',
    library: 'bare',
    spec: node('node-bare-initialize.ts'),
    version: LEGACY,
  },
  {
    id: 'node/edge-mcp',
    label: 'edge-mcp',
    runtime: 'node',
    library: 'edge-mcp',
    spec: node('node-edge.ts', undefined, { MAX_SESSIONS: '1000000' }),
    version: LEGACY,
    baseline: 'node/bare-initialize',
    goals: atLeast(15, 'Node: sessions created per second vs SDK v1', 'node/sdk-v1'),
  },
  {
    id: 'node/sdk-v1',
    label: 'SDK v1',
    runtime: 'node',
    library: 'sdk-v1',
    spec: node('node-sdk-v1.ts', 'session'),
    version: LEGACY,
    baseline: 'node/bare-initialize',
  },
  {
    id: 'node/sdk-v2',
    label: 'SDK v2 (sessionful transport)',
    runtime: 'node',
    library: 'sdk-v2',
    spec: node('node-sdk-v2.ts', 'session'),
    version: LEGACY,
    baseline: 'node/bare-initialize',
  },
  {
    id: 'node/mcp-lite',
    label: 'mcp-lite',
    runtime: 'node',
    library: 'mcp-lite',
    spec: node('node-mcp-lite.ts', 'session'),
    version: LITE,
    baseline: 'node/bare-initialize',
  },
];

/**
 * A million idle legacy sessions next to a few active ones (the idle-sessions measure): the
 * measure sets MAX_SESSIONS and SESSION_IDLE_MS for the count it opens.
 */
export interface IdleSessionTarget extends Entry {
  version: string;
}

export const IDLE_SESSION_TARGETS: IdleSessionTarget[] = [
  {
    id: 'node/edge-mcp',
    label: 'edge-mcp',
    runtime: 'node',
    library: 'edge-mcp',
    spec: node('node-edge.ts'),
    version: LEGACY,
  },
];

/** Client disconnect → handler abort, per runtime (edge-mcp only). */
export type ProbeTarget = Entry;

export const DISCONNECT_TARGETS: ProbeTarget[] = (['node', 'deno', 'bun'] as const).map(
  (runtime) => ({
    id: `${runtime}/edge-mcp`,
    label: 'edge-mcp',
    runtime,
    library: 'edge-mcp',
    spec: runtime === 'node' ? node('node-edge.ts') : { runtime, entry: `${runtime}-edge.ts` },
  }),
);

/** SIGTERM → exit with sessions and calls in flight. */
export const SHUTDOWN_TARGETS: ProbeTarget[] = [
  {
    id: 'node/edge-mcp',
    label: 'edge-mcp',
    runtime: 'node',
    library: 'edge-mcp',
    // Its 10,000 sessions come from one address: over the per-principal default (1,000) the
    // idlest would be evicted, the sessions of the calls in flight first.
    spec: node('node-edge.ts', undefined, { MAX_SESSIONS: '1000000' }),
  },
];

/**
 * The fairness measure's per-principal bucket (src/measures/fairness.ts says why these numbers):
 * a bucket per principal only, no `total` and no per-tool bucket, so one principal cannot spend
 * another's budget and what is measured is whether its refused flood slows the other down.
 */
export const FAIRNESS_LIMIT = { perSecond: 200, burst: 200 } as const;

/**
 * A principal flooding at 10× its rate limit vs another principal's latency. `control` is the
 * server the same flood goes to in the control phase: another process on the same machine, so
 * that phase shows what the flood costs the victim through the shared cores alone.
 */
export type FairnessTarget = ProbeTarget & { control: TargetSpec };

export const FAIRNESS_TARGETS: FairnessTarget[] = [
  {
    id: 'node/edge-mcp',
    label: 'edge-mcp',
    runtime: 'node',
    library: 'edge-mcp',
    spec: node('node-edge.ts', undefined, {
      RATE_LIMIT: `${FAIRNESS_LIMIT.perSecond}:${FAIRNESS_LIMIT.burst}`,
      RATE_LIMIT_SCOPE: 'principal',
    }),
    control: node('node-bare.ts'),
  },
];
